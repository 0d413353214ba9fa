// Routing by error and the time limit in the JSON consumer configuration: "categories",
// "errorRules" and "retry.timeLimit", and every bad value named.
#include <gtest/gtest.h>

#include <stdexcept>

#include "expect_error.hpp"
#include "reconsume/consumer_config.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using testing::invalidArgumentText;
using testing::mentions;

std::string document(const std::string& more) {
  return R"({"topics": ["t"], "subscription": "s", "retry": {"levels": "1s 5s"}, )" + more + "}";
}

std::string errorOf(const std::string& json) {
  return invalidArgumentText([&] { parseConsumerOptions(json); });
}

TEST(CategoryConfig, CategoriesRulesAndATimeLimitLoad) {
  auto options = parseConsumerOptions(R"({
    "topics": ["t"], "subscription": "s",
    "retry": {"levels": "1s 5s", "timeLimit": "24h"},
    "categories": {
      "downstream-timeout": {"retry": {"exponential": {"min": "100ms", "max": "10s"},
                                       "maxRetries": 8, "timeLimit": "5m"}},
      "invalid-order": {"deadLetter": true, "deadLetterTopic": "persistent://shop/orders/bad"}
    },
    "errorRules": [{"type": "std::runtime_error", "category": "downstream-timeout"},
                   {"type": "std::invalid_argument", "category": "invalid-order"}]
  })");
  ASSERT_TRUE(options.retry);
  EXPECT_EQ(options.retry->timeLimit(), 24h);
  ASSERT_EQ(options.categories.size(), 2u);
  const auto& timeout = options.categories.at("downstream-timeout");
  ASSERT_TRUE(timeout.retry);
  EXPECT_EQ(timeout.retry->maxRetries(), 8);
  EXPECT_EQ(timeout.retry->timeLimit(), 5min);
  EXPECT_FALSE(timeout.deadLetter);
  const auto& invalid = options.categories.at("invalid-order");
  EXPECT_TRUE(invalid.deadLetter);
  EXPECT_EQ(invalid.deadLetterTopic, "persistent://shop/orders/bad");
  EXPECT_EQ(options.errorRules.classify(std::make_exception_ptr(std::invalid_argument("x"))),
            "invalid-order");
  EXPECT_EQ(options.errorRules.classify(std::make_exception_ptr(std::range_error("y"))),
            "downstream-timeout");
}

TEST(CategoryConfig, ARuleNamingAnUndefinedCategoryIsAnErrorNamingIt) {
  auto text = errorOf(document(R"("categories": {"slow": {"retry": {"levels": "1m"}}},
    "errorRules": [{"type": "std::exception", "category": "slwo"}])"));
  EXPECT_TRUE(mentions(text, "errorRules[0].category \"slwo\""));
}

TEST(CategoryConfig, AnUnknownTypeIsAnErrorNamingIt) {
  auto text = errorOf(document(R"("categories": {"slow": {"retry": {"levels": "1m"}}},
    "errorRules": [{"type": "TimeoutError", "category": "slow"}])"));
  EXPECT_TRUE(mentions(text, "errorRules[0].type \"TimeoutError\""));
}

TEST(CategoryConfig, AnApplicationsOwnTypesResolveThroughItsRegistry) {
  struct TimeoutError : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  ErrorTypeRegistry types;
  types.add<TimeoutError>("TimeoutError");
  auto options = parseConsumerOptions(document(R"("categories": {"slow": {}},
    "errorRules": [{"type": "TimeoutError", "category": "slow"}])"),
                                      BackoffRegistry::builtin(), types);
  EXPECT_EQ(options.errorRules.classify(std::make_exception_ptr(TimeoutError("t"))), "slow");
}

TEST(CategoryConfig, BadCategoryValuesAreNamed) {
  EXPECT_TRUE(mentions(errorOf(document(R"("categories": {"x": {"retry": {"levels": "1s"},
                                                                "deadLetter": true}})")),
                       "categories.x sets both 'retry' and 'deadLetter'"));
  EXPECT_TRUE(mentions(errorOf(document(R"("categories": {"x": {"dedLetter": true}})")),
                       "unknown key 'categories.x.dedLetter'"));
  EXPECT_TRUE(
      mentions(errorOf(document(R"("categories": {"x": {"deadLetterTopic": "a/b"}})")), "'a/b'"));
  EXPECT_TRUE(
      mentions(errorOf(document(R"("retry": {"levels": "1s", "timeLimit": "0s"})")), "timeLimit"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "categories": {"x": {}}})"),
               "categories['x'] has neither a retry policy nor deadLetter"));
}

}  // namespace
}  // namespace reconsume
