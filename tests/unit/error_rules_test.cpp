// Routing by error: which category an exception belongs to (the most derived matching type wins;
// among rules of one type the first registered; predicates narrow a rule), and exception types by
// name for the JSON configuration.
#include <gtest/gtest.h>

#include <stdexcept>
#include <system_error>

#include "expect_error.hpp"
#include "reconsume/error.hpp"
#include "reconsume/error_routing.hpp"

namespace reconsume {
namespace {

struct Timeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ConnectTimeout : Timeout {
  using Timeout::Timeout;
};
struct NotAnException {};

template <typename E>
std::exception_ptr thrown(E error) {
  return std::make_exception_ptr(std::move(error));
}

TEST(ErrorRules, TheMostDerivedMatchingTypeWinsWhateverTheOrder) {
  ErrorRules rules;
  rules.on<std::exception>("anything").on<ConnectTimeout>("connect").on<Timeout>("timeout");
  EXPECT_EQ(rules.classify(thrown(ConnectTimeout("c"))), "connect");
  EXPECT_EQ(rules.classify(thrown(Timeout("t"))), "timeout");
  EXPECT_EQ(rules.classify(thrown(std::logic_error("l"))), "anything");

  ErrorRules reversed;
  reversed.on<Timeout>("timeout").on<ConnectTimeout>("connect").on<std::exception>("anything");
  EXPECT_EQ(reversed.classify(thrown(ConnectTimeout("c"))), "connect");
}

TEST(ErrorRules, AmongRulesOfOneTypeTheFirstRegisteredWins) {
  ErrorRules rules;
  rules.on<Timeout>("first").on<Timeout>("second");
  EXPECT_EQ(rules.classify(thrown(Timeout("t"))), "first");
}

TEST(ErrorRules, APredicateNarrowsItsRule) {
  ErrorRules rules;
  rules
      .on<std::system_error>("rate-limited",
                             [](const std::system_error& e) {
                               return e.code() == std::errc::resource_unavailable_try_again;
                             })
      .on<std::system_error>("io");
  auto busy =
      thrown(std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again)));
  auto reset = thrown(std::system_error(std::make_error_code(std::errc::connection_reset)));
  EXPECT_EQ(rules.classify(busy), "rate-limited");
  EXPECT_EQ(rules.classify(reset), "io");
}

TEST(ErrorRules, NoMatchNoCategory) {
  ErrorRules rules;
  rules.on<Timeout>("timeout");
  EXPECT_EQ(rules.classify(thrown(std::invalid_argument("x"))), std::nullopt);
  EXPECT_EQ(rules.classify(thrown(NotAnException{})), std::nullopt);
  EXPECT_EQ(rules.classify(nullptr), std::nullopt);
  EXPECT_EQ(ErrorRules().classify(thrown(Timeout("t"))), std::nullopt);
  EXPECT_EQ(rules.categories(), std::vector<std::string>{"timeout"});
}

TEST(ErrorTypeRegistry, KnowsTheStandardTypesAndTheApplications) {
  ErrorTypeRegistry registry;
  EXPECT_TRUE(registry.contains("std::runtime_error"));
  EXPECT_TRUE(registry.contains("reconsume::Error"));
  registry.add<Timeout>("Timeout");
  ErrorRules rules;
  registry.addRule(rules, "Timeout", "slow");
  registry.addRule(rules, "std::exception", "other");
  EXPECT_EQ(rules.classify(thrown(ConnectTimeout("c"))), "slow");
  EXPECT_EQ(rules.classify(thrown(Error(errc::timeout, "t"))), "other");
}

TEST(ErrorTypeRegistry, UnknownAndDuplicateNamesAreErrorsNamingThem) {
  ErrorTypeRegistry registry;
  ErrorRules rules;
  auto unknown = testing::invalidArgumentText([&] { registry.addRule(rules, "Tmeout", "x"); });
  EXPECT_TRUE(testing::mentions(unknown, "'Tmeout'"));
  EXPECT_TRUE(testing::mentions(unknown, "std::runtime_error"));  // the known ones are listed
  auto taken = testing::invalidArgumentText([&] { registry.add<Timeout>("std::exception"); });
  EXPECT_TRUE(testing::mentions(taken, "'std::exception'"));
}

}  // namespace
}  // namespace reconsume
