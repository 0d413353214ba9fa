// The console's JSON API in-process on an embedded broker with real dead letters: every answer,
// and bad input as a 4xx naming the value. (tests/console/console_browser_test.py drives the page
// in Chromium against Pulsar.)
#include "console/console_api.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;

class ConsoleApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    auto url = "embedded://console-" + std::to_string(++counter);
    client_ = Client::connect(url);
    admin_ = Admin::connect(url);
    ConsumerOptions options;
    options.topics = {"persistent://public/default/orders"};
    options.subscription = "billing";
    options.initialPosition = InitialPosition::earliest;
    options.retry = RetryPolicy::levels(DelayLevels::parse("1s"));
    consumer_ = client_.subscribe(options);
    auto producer = client_.createProducer("persistent://public/default/orders");
    for (int i = 0; i < 5; ++i) {
      producer.send(std::string(R"({"order":)") + std::to_string(i) + "}");
      auto message = consumer_.receive(5s);
      ASSERT_TRUE(message);
      consumer_.deadLetter(*message, i < 3 ? "timeout" : "invalid order");
    }
    queue_.emplace(client_, admin_, *consumer_.deadLetterTopic());
  }
  void TearDown() override { client_.close(); }

  boost::json::value call(const std::string& method, const std::string& path,
                          std::map<std::string, std::string> query = {}, std::string body = "",
                          bool readOnly = false, int expected = 200) {
    ConsoleApi api(*queue_, *client_.clock(), readOnly);
    auto response = api.handle({method, path, std::move(query), std::move(body)});
    EXPECT_EQ(response.status, expected) << method << " " << path << ": " << response.body;
    return boost::json::parse(response.body);
  }

  Client client_;
  Admin admin_;
  Consumer consumer_;
  std::optional<DeadLetterQueue> queue_;
};

TEST_F(ConsoleApiTest, ConfigStatsAndAPagedFilteredList) {
  auto config = call("GET", "/api/config");
  EXPECT_EQ(config.at("topic").as_string(), *consumer_.deadLetterTopic());
  EXPECT_FALSE(config.at("readOnly").as_bool());
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 5);
  EXPECT_EQ(call("GET", "/api/stats", {{"reason", "^time"}}).at("count").as_int64(), 3);

  auto page = call("GET", "/api/list", {{"offset", "1"}, {"limit", "2"}});
  EXPECT_EQ(page.at("total").as_int64(), 5);
  ASSERT_EQ(page.at("items").as_array().size(), 2u);
  auto all = call("GET", "/api/list").at("items").as_array();
  EXPECT_EQ(page.at("items").as_array()[0].at("id"), all[1].at("id"));
  EXPECT_EQ(call("GET", "/api/list", {{"reason", "invalid"}}).at("total").as_int64(), 2);
}

TEST_F(ConsoleApiTest, ShowsOneInFullWithItsHistory) {
  auto id = std::string(call("GET", "/api/list").at("items").as_array()[0].at("id").as_string());
  auto letter = call("GET", "/api/show", {{"id", id}});
  EXPECT_EQ(letter.at("id").as_string(), id);
  EXPECT_EQ(letter.at("payload").as_string(), R"({"order":0})");
  EXPECT_EQ(letter.at("cause").as_string(), "explicit");
  ASSERT_EQ(letter.at("history").as_array().size(), 1u);
  EXPECT_EQ(letter.at("history").as_array()[0].at("reason").as_string(), "timeout");
  EXPECT_TRUE(letter.at("properties").as_object().contains("REAL_TOPIC"));
}

TEST_F(ConsoleApiTest, ReplayAndPurgeOfASelectionWithADryRunFirst) {
  auto items = call("GET", "/api/list").at("items").as_array();
  std::string ids = "[" + boost::json::serialize(items[0].at("id")) + "," +
                    boost::json::serialize(items[1].at("id")) + "]";
  auto plan = call("POST", "/api/replay", {}, R"({"dryRun": true, "ids": )" + ids + "}");
  EXPECT_EQ(plan.at("matched").as_int64(), 2);
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 5) << "a dry run changes nothing";
  auto replayed = call("POST", "/api/replay", {}, R"({"ids": )" + ids + "}");
  EXPECT_EQ(replayed.at("replayed").as_int64(), 2);
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 3);
  auto purged = call("POST", "/api/purge", {}, R"({"filter": {"reason": "invalid"}})");
  EXPECT_EQ(purged.at("purged").as_int64(), 2);
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 1);
}

TEST_F(ConsoleApiTest, BadInputIsA4xxNamingItAndChangesNothing) {
  auto message = [](const boost::json::value& answer) {
    return std::string(answer.at("error").as_string());
  };
  EXPECT_NE(message(call("GET", "/api/list", {{"cause", "nope"}}, "", false, 400)).find("'nope'"),
            std::string::npos);
  EXPECT_NE(message(call("GET", "/api/list", {{"limit", "5000"}}, "", false, 400)).find("5000"),
            std::string::npos);
  EXPECT_NE(message(call("GET", "/api/show", {{"id", "x:y"}}, "", false, 400)).find("'x:y'"),
            std::string::npos);
  EXPECT_NE(message(call("GET", "/api/show", {{"id", "99:9:-1"}}, "", false, 404)).find("99:9:-1"),
            std::string::npos);
  call("POST", "/api/purge", {}, "not json", false, 400);
  call("POST", "/api/purge", {}, "{}", false, 400);  // no selection: not "everything"
  call("POST", "/api/purge", {}, R"({"ids": ["bogus"]})", false, 400);
  call("POST", "/api/purge", {}, R"({"filter": {"reason": "."}})", /*readOnly=*/true, 403);
  call("GET", "/api/purge", {}, "", false, 405);
  call("GET", "/api/nothing", {}, "", false, 404);
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 5);
}

TEST_F(ConsoleApiTest, ANameOrTypeItDoesNotKnowIsRefusedNotIgnored) {
  auto refused = [&](const std::string& method, const std::string& path,
                     std::map<std::string, std::string> query, const std::string& body,
                     const std::string& named) {
    auto answer = call(method, path, std::move(query), body, false, 400);
    EXPECT_NE(std::string(answer.at("error").as_string()).find(named), std::string::npos)
        << path << " " << body << ": " << answer;
  };
  // Each of these once purged or replayed for real, or more than asked.
  refused("POST", "/api/purge", {}, R"({"dryRun": "true", "filter": {"reason": "invalid"}})",
          "dryRun");
  refused("POST", "/api/replay", {}, R"({"dryRun": 1, "filter": {"reason": "invalid"}})", "dryRun");
  refused("POST", "/api/purge", {}, R"({"filter": {"reason": "timeout", "olderThan": 3600000}})",
          "olderThan");
  refused("POST", "/api/purge", {}, R"({"filter": {"reason": "timeout", "older_than": "1h"}})",
          "'older_than'");
  refused("POST", "/api/purge", {}, R"({"ids": "1:2:-1", "filter": {"reason": "timeout"}})", "ids");
  refused("POST", "/api/purge", {}, R"({"filter": "timeout"})", "filter");
  refused("POST", "/api/purge", {}, R"({"filter": {"reason": "timeout"}, "dry_run": true})",
          "'dry_run'");
  refused("GET", "/api/list", {{"older_than", "1h"}}, "", "'older_than'");
  refused("GET", "/api/stats", {{"reasn", "x"}}, "", "'reasn'");
  refused("GET", "/api/show", {{"id", "1:2:-1"}, {"ids", "x"}}, "", "'ids'");
  EXPECT_EQ(call("GET", "/api/stats").at("count").as_int64(), 5) << "nothing was changed";
  // What the page sends is accepted.
  EXPECT_EQ(call("GET", "/api/list", {{"newerThan", "1h"}, {"offset", "0"}, {"limit", "10"}})
                .at("total")
                .as_int64(),
            5);
}

TEST(ConsoleQuery, DecodesFormEncoding) {
  auto query = parseQuery("reason=time%28d+%29%3Fout&cause=explicit&empty=&flag&bad=%zz");
  EXPECT_EQ(query["reason"], "time(d )?out");
  EXPECT_EQ(query["cause"], "explicit");
  EXPECT_EQ(query["empty"], "");
  EXPECT_TRUE(query.count("flag"));
  EXPECT_EQ(query["bad"], "%zz");
}

}  // namespace
}  // namespace reconsume::tools
