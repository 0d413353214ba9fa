// The dlq verbs' options: parsed, and every bad value named.
#include "dlq_options.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;

std::string badInput(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(DlqFilterOptions, ParsesEveryFilter) {
  FilterText text;
  text.cause = "exhausted";
  text.reason = "time(d )?out";
  text.origin = "orders";
  text.key = "customer-7";
  text.category = "invalid-order";
  text.olderThan = "1h";
  text.newerThan = "7d";
  text.ids = {"12:7:-1", "12:8:2:5"};
  auto filter = parseFilter(text);
  EXPECT_EQ(filter.cause, "exhausted");
  EXPECT_EQ(filter.reason, "time(d )?out");
  EXPECT_EQ(filter.origin, "orders");
  EXPECT_EQ(filter.key, "customer-7");
  EXPECT_EQ(filter.category, "invalid-order");
  EXPECT_EQ(filter.olderThan, 1h);
  EXPECT_EQ(filter.newerThan, 7 * 24h);
  ASSERT_EQ(filter.ids.size(), 2u);
  EXPECT_EQ(filter.ids[0], MessageId(12, 7, -1));
  EXPECT_EQ(filter.ids[1], MessageId(12, 8, 2, 5));
  EXPECT_TRUE(parseFilter({}).empty());
}

TEST(DlqFilterOptions, BadValuesAreNamedWithTheirOption) {
  struct Case {
    std::function<void(FilterText&)> set;
    std::vector<std::string> named;
  };
  std::vector<Case> cases = {
      {[](auto& t) { t.cause = "poison"; }, {"--cause", "'poison'"}},
      {[](auto& t) { t.reason = "time(out"; }, {"'time(out'"}},
      {[](auto& t) { t.olderThan = "5x"; }, {"--older-than", "'5x'", "unknown unit"}},
      {[](auto& t) { t.newerThan = "-1h"; }, {"--newer-than", "'-1h'"}},
      {[](auto& t) { t.newerThan = "soon"; }, {"--newer-than", "'soon'"}},
      {[](auto& t) {
         t.ids = {"12:7:-1", "12-7"};
       },
       {"--id", "'12-7'"}},
      {[](auto& t) { t.origin = "a/b/c/d/e"; }, {"'a/b/c/d/e'"}},
  };
  for (const auto& c : cases) {
    FilterText text;
    c.set(text);
    auto message = badInput([&] { parseFilter(text); });
    for (const auto& part : c.named) {
      EXPECT_NE(message.find(part), std::string::npos) << message << " lacks " << part;
    }
  }
}

TEST(DlqRateOption, PerSecondWithOrWithoutTheUnit) {
  EXPECT_EQ(parseRate("200"), 200);
  EXPECT_EQ(parseRate("200/s"), 200);
  EXPECT_EQ(parseRate("0.5/s"), 0.5);
  for (const char* bad : {"0", "0/s", "-5", "abc", "200/m", "", "/s", "1e10", "nan"}) {
    auto message = badInput([&] { parseRate(bad); });
    EXPECT_NE(message.find("--rate '" + std::string(bad) + "'"), std::string::npos) << message;
  }
}

TEST(DlqCountOption, AtLeastOne) {
  EXPECT_EQ(parseCount("25", "--limit"), 25u);
  for (const char* bad : {"0", "-1", "ten", "", "3.5"}) {
    auto message = badInput([&] { parseCount(bad, "--limit"); });
    EXPECT_NE(message.find("--limit '" + std::string(bad) + "'"), std::string::npos) << message;
  }
}

TEST(DlqAdminUrl, DerivedFromTheServiceUrl) {
  EXPECT_EQ(adminUrlFor("pulsar://localhost:6650"), "http://localhost:8080");
  EXPECT_EQ(adminUrlFor("pulsar://broker.example.com"), "http://broker.example.com:8080");
  EXPECT_EQ(adminUrlFor("pulsar+ssl://broker:6651"), "https://broker:8443");
  EXPECT_EQ(adminUrlFor("embedded://cli"), "embedded://cli");
  auto message = badInput([] { adminUrlFor("http://localhost:8080"); });
  EXPECT_NE(message.find("'http://localhost:8080'"), std::string::npos) << message;
}

TEST(DlqConnect, AnUnreadableTokenFileIsNamed) {
  DlqOptions options;
  options.connection.url = "embedded://token-file-test";
  options.connection.tokenFile = "/nonexistent/token.txt";
  std::ostringstream err;
  auto message = badInput([&] { connect(options, err); });
  EXPECT_NE(message.find("'/nonexistent/token.txt'"), std::string::npos) << message;
}

}  // namespace
}  // namespace reconsume::tools
