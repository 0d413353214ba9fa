// The pure parts of the HTTP admin backend: REST paths, status mapping, JSON answers.
#include <gtest/gtest.h>

#include "admin/admin_json.hpp"
#include "admin/admin_paths.hpp"
#include "admin/http_status.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::admin {
namespace {

TEST(AdminPaths, BuildsTopicAndNamespacePaths) {
  auto topic = TopicName::parse("persistent://acme/orders/payments-partition-2");
  EXPECT_EQ(topicPath(topic), "/admin/v2/persistent/acme/orders/payments-partition-2");
  EXPECT_EQ(topicPath(topic, "/stats"),
            "/admin/v2/persistent/acme/orders/payments-partition-2/stats");
  EXPECT_EQ(namespaceTopicsPath(topic), "/admin/v2/persistent/acme/orders");
  EXPECT_EQ(topicPath(TopicName::parse("non-persistent://t/n/x"), "/partitions"),
            "/admin/v2/non-persistent/t/n/x/partitions");
}

TEST(AdminPaths, PercentEncodesEverySegment) {
  auto topic = TopicName::parse("persistent://t/n/a b?c#d%e&f=g");
  EXPECT_EQ(topicPath(topic, "/stats"), "/admin/v2/persistent/t/n/a%20b%3Fc%23d%25e%26f%3Dg/stats");
}

TEST(HttpStatus, SuccessIsOk) {
  EXPECT_TRUE(statusOf("GET", "/p", 200, "OK", "{}").ok());
  EXPECT_TRUE(statusOf("PUT", "/p", 204, "No Content", "").ok());
}

TEST(HttpStatus, MapsEachStatusToItsErrc) {
  struct Case {
    unsigned status;
    errc expected;
  };
  for (auto [status, expected] :
       {Case{400, errc::invalid_argument}, Case{401, errc::authentication},
        Case{403, errc::authentication}, Case{404, errc::not_found}, Case{405, errc::broker_error},
        Case{409, errc::broker_error}, Case{412, errc::broker_error}, Case{429, errc::unavailable},
        Case{500, errc::broker_error}, Case{503, errc::unavailable},
        Case{307, errc::broker_error}}) {
    Status result = statusOf("GET", "/p", status, "", "");
    EXPECT_EQ(result.code, expected) << "HTTP " << status;
  }
}

TEST(HttpStatus, NamesRequestStatusAndTheBrokersReason) {
  Status result = statusOf("DELETE", "/admin/v2/persistent/public/default/x", 404, "Not Found",
                           R"({"reason":"Topic persistent://public/default/x not found"})");
  EXPECT_EQ(result.code, errc::not_found);
  EXPECT_EQ(result.message,
            "DELETE /admin/v2/persistent/public/default/x: 404 Not Found: Topic "
            "persistent://public/default/x not found");
}

TEST(HttpStatus, SaysAReasonThatIsAlsoThePhraseOnce) {
  Status result =
      statusOf("GET", "/p", 404, "Topic t not found", R"({"reason":"Topic t not found"})");
  EXPECT_EQ(result.message, "GET /p: 404 Topic t not found");
}

TEST(HttpStatus, HtmlErrorPagesAddNothing) {
  Status result = statusOf("GET", "/p", 401, "Unauthorized", "<html><body>401</body></html>");
  EXPECT_EQ(result.message, "GET /p: 401 Unauthorized");
}

TEST(HttpStatus, KeepsTheMessageOfAStackTraceReason) {
  std::string body =
      R"({"reason":"\n --- An unexpected error occurred in the server ---\n\nMessage: Not enough )"
      R"(non-faulty bookies available\n\nStacktrace:\n\norg.apache.Foo\n\tat Bar"})";
  EXPECT_EQ(brokerReason(body), "Not enough non-faulty bookies available");
}

TEST(HttpStatus, ShortensLongReasonsAtACharacterBoundary) {
  std::string reason(499, 'x');
  reason += "\xC3\xA9tail";  // "é" straddles the 500-byte cut
  std::string text = brokerReason("{\"reason\":\"" + reason + "\"}");
  EXPECT_EQ(text, std::string(499, 'x') + "...");
}

TEST(AdminJson, ReadsThePartitionCount) {
  EXPECT_EQ(parsePartitions(R"({"partitions":4,"deleted":false})", "GET /p"), 4);
  EXPECT_EQ(parsePartitions(R"({"partitions":0})", "GET /p"), 0);
}

TEST(AdminJson, RejectsAnswersWithoutACountNamingTheRequest) {
  for (const char* body : {"", "[]", "{}", R"({"partitions":-1})", R"({"partitions":"2"})"}) {
    try {
      parsePartitions(body, "GET /admin/v2/x/partitions");
      ADD_FAILURE() << "accepted '" << body << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::protocol_error);
      EXPECT_NE(std::string(e.what()).find("GET /admin/v2/x/partitions"), std::string::npos)
          << e.what();
    }
  }
}

TEST(AdminJson, ReadsTopicLists) {
  auto topics = parseTopicList(R"(["persistent://t/n/a","persistent://t/n/b-partition-0"])", "w");
  EXPECT_EQ(topics,
            (std::vector<std::string>{"persistent://t/n/a", "persistent://t/n/b-partition-0"}));
  EXPECT_TRUE(parseTopicList("[]", "w").empty());
  EXPECT_THROW(parseTopicList(R"({"a":1})", "w"), Error);
  EXPECT_THROW(parseTopicList(R"([1])", "w"), Error);
}

TEST(AdminJson, ReadsSubscriptionBacklogs) {
  std::map<std::string, std::int64_t> backlogs;
  addSubscriptionBacklogs(
      R"({"msgInCounter":9,"subscriptions":{"a":{"msgBacklog":3,"type":"Shared"},"b":{"msgBacklog":0},"c":{}}})",
      "w", backlogs);
  EXPECT_EQ(backlogs, (std::map<std::string, std::int64_t>{{"a", 3}, {"b", 0}, {"c", 0}}));

  std::map<std::string, std::int64_t> none;
  addSubscriptionBacklogs(R"({"msgInCounter":0})", "w", none);
  EXPECT_TRUE(none.empty());
  EXPECT_THROW(addSubscriptionBacklogs(R"({"subscriptions":{"a":{"msgBacklog":"x"}}})", "w", none),
               Error);
}

TEST(AdminJson, SumsBacklogsOverPartitions) {
  std::map<std::string, std::int64_t> backlogs;
  addPartitionedSubscriptionBacklogs(R"({
    "subscriptions": {"a": {"msgBacklog": 100}},
    "partitions": {
      "persistent://t/n/x-partition-0": {"subscriptions": {"a": {"msgBacklog": 2}, "b": {"msgBacklog": 1}}},
      "persistent://t/n/x-partition-1": {"subscriptions": {"a": {"msgBacklog": 5}}}
    }})",
                                     "w", backlogs);
  EXPECT_EQ(backlogs, (std::map<std::string, std::int64_t>{{"a", 7}, {"b", 1}}));
}

// Found by tests/fuzz/admin_json_fuzzer.cpp: backlogs near INT64_MAX overflowed the sum (UBSan:
// signed integer overflow), one above it made Boost.JSON's to_number throw its own exception type
// instead of Error, and a negative one was summed. They now saturate, or are refused as Error.
TEST(AdminJson, HugeBacklogsSaturateAndNegativeOnesAreRefused) {
  std::map<std::string, std::int64_t> backlogs;
  addPartitionedSubscriptionBacklogs(R"({"partitions": {
      "p0": {"subscriptions": {"a": {"msgBacklog": 3}, "b": {"msgBacklog": 18446744073709551615}}},
      "p1": {"subscriptions": {"a": {"msgBacklog": 9223372036854775807}}}}})",
                                     "w", backlogs);
  EXPECT_EQ(backlogs, (std::map<std::string, std::int64_t>{{"a", INT64_MAX}, {"b", INT64_MAX}}));
  addSubscriptionBacklogs(R"({"subscriptions": {"a": {"msgBacklog": 1}}})", "w", backlogs);
  EXPECT_EQ(backlogs["a"], INT64_MAX);
  try {
    addSubscriptionBacklogs(R"({"subscriptions": {"a": {"msgBacklog": -1}}})", "w", backlogs);
    FAIL() << "a negative backlog was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::protocol_error);
    EXPECT_NE(std::string(e.what()).find("msgBacklog is negative"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace reconsume::detail::admin
