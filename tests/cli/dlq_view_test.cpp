// What `reconsume dlq` shows: tables and charts within 80 columns, JSON for machines.
#include "dlq_view.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "../unit/dlq_test_messages.hpp"
#include "dlq/stats.hpp"
#include "lines_of.hpp"
#include "text_table.hpp"

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::StoredMessage;

void expectWithin(const std::string& text, int width) {
  for (const auto& line : linesOf(text)) {
    EXPECT_LE(displayWidth(line), width) << "'" << line << "'";
  }
}

const TimePoint kPublished = StoredMessage{}.publishTime;

DeadLetter deadLetter(std::map<std::string, std::string> properties, std::string payload = "p",
                      std::chrono::milliseconds age = 0ms, MessageId id = {7, 3, -1}) {
  StoredMessage stored;
  stored.properties = std::move(properties);
  stored.payload = std::move(payload);
  stored.publishTime = kPublished - age;
  stored.id = id;
  return DeadLetter::from(stored.build());
}

TEST(DlqView, ShortTopicNames) {
  EXPECT_EQ(shortTopic("persistent://public/default/orders"), "orders");
  EXPECT_EQ(shortTopic("persistent://shop/eu/orders"), "shop/eu/orders");
  EXPECT_EQ(shortTopic("non-persistent://public/default/x"), "non-persistent://public/default/x");
  EXPECT_EQ(shortTopic(""), "(none)");
}

TEST(DlqView, ListFitsEightyColumnsWhateverTheReason) {
  std::vector<DeadLetter> letters = {
      deadLetter({{"DEAD_LETTER_CAUSE", "exhausted"},
                  {"REAL_TOPIC", "persistent://public/default/orders"},
                  {"RECONSUME_REASON", "inventory service timed out"}},
                 "p", 2h + 5min, {123456, 7890, -1}),
      deadLetter({{"DEAD_LETTER_CAUSE", "explicit"},
                  {"REAL_TOPIC", "persistent://a-long-tenant/a-long-namespace/a-long-topic-name"},
                  {"RECONSUME_REASON", std::string(500, 'x') + "\nwith a line break"}},
                 "p", 4 * 24h, {123456, 7891, 11}),
      deadLetter({{"REAL_TOPIC", "persistent://public/default/orders"}}, "p", 30s),
  };
  auto text = renderList(letters, kPublished, 80);
  auto lines = linesOf(text);
  ASSERT_EQ(lines.size(), 4u);
  expectWithin(text, 80);
  EXPECT_EQ(lines[0].substr(0, 2), "ID");
  EXPECT_NE(lines[1].find("123456:7890:-1"), std::string::npos);
  EXPECT_NE(lines[1].find("2h 5m"), std::string::npos);
  EXPECT_NE(lines[1].find("exhausted"), std::string::npos);
  EXPECT_NE(lines[1].find("orders"), std::string::npos);
  EXPECT_NE(lines[1].find("inventory service"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("…"), std::string::npos);
  EXPECT_NE(lines[3].find("unknown"), std::string::npos) << "a Java dead letter";
  EXPECT_NE(lines[3].find("(none)"), std::string::npos);
  // Every row starts its columns where the header does.
  auto reasonColumn = lines[0].find("REASON");
  EXPECT_EQ(lines[1].find("inventory"), reasonColumn);
  // With origins of the usual length the reason is shown whole.
  auto usual = renderList({letters[0]}, kPublished, 80);
  EXPECT_NE(usual.find("inventory service timed out"), std::string::npos) << usual;
  expectWithin(renderList(letters, kPublished, 40), 40);
}

TEST(DlqView, StatsChartsFitEightyColumns) {
  detail::dlq::StatsBuilder builder(kPublished);
  for (int i = 0; i < 40; ++i) {
    builder.add(deadLetter({{"DEAD_LETTER_CAUSE", i % 4 == 0 ? "explicit" : "exhausted"},
                            {"REAL_TOPIC", i % 3 == 0 ? "persistent://public/default/payments"
                                                      : "persistent://public/default/orders"},
                            {"RECONSUME_REASON", "reason number " + std::to_string(i % 13) +
                                                     std::string(i % 2 ? 70 : 0, '!')}},
                           std::string(100, 'x'), std::chrono::hours(i * 5)));
  }
  builder.add(deadLetter({}, "", 3min));  // Java: no cause, no origin, no reason
  auto text = renderStats(builder.stats(), "persistent://public/default/orders-billing-DLQ",
                          "reconsume-dlq", kPublished, 80);
  expectWithin(text, 80);
  EXPECT_NE(text.find("41 dead letters"), std::string::npos) << text;
  EXPECT_NE(text.find("3.9 KiB"), std::string::npos) << text;
  for (const char* part :
       {"By cause", "exhausted", "explicit", "unknown", "By origin topic", "payments", "(none)",
        "By reason (the 10 most frequent)", "other reasons)", "Age", "<1m", "<10m", "<1h", "<6h",
        "<1d", "<7d", "older", "█"}) {
    EXPECT_NE(text.find(part), std::string::npos) << "no '" << part << "' in\n" << text;
  }
  // Counts are right-aligned in a column; the largest bar is the longest.
  auto lines = linesOf(text);
  auto exhaustedLine = std::find_if(lines.begin(), lines.end(),
                                    [](const auto& l) { return l.find("  exhausted") == 0; });
  ASSERT_NE(exhaustedLine, lines.end());
  EXPECT_NE(exhaustedLine->find(" 30  "), std::string::npos) << *exhaustedLine;
  expectWithin(renderStats(builder.stats(), "t", "s", kPublished, 40), 40);
}

TEST(DlqView, StatsOfAnEmptyTopic) {
  detail::dlq::StatsBuilder builder(kPublished);
  auto text = renderStats(builder.stats(), "t", "s", kPublished, 80);
  EXPECT_NE(text.find("0 dead letters"), std::string::npos) << text;
  EXPECT_NE(text.find("(none)"), std::string::npos) << text;
}

TEST(DlqView, ShowHasEverythingAndBase64ForBinary) {
  auto letter = deadLetter(
      {{"DEAD_LETTER_CAUSE", "exhausted"},
       {"RECONSUME_REASON", "timeout"},
       {"REAL_TOPIC", "persistent://public/default/orders"},
       {"ORIGIN_MESSAGE_ID", "5:0:-1"},
       {"RECONSUMETIMES", "3"},
       {"RECONSUME_HISTORY",
        R"([{"n":1,"at":1704067100000,"delay":1000,"reason":"timeout"},{"n":3,"at":1704067200000,"delay":0,"reason":"timeout"}])"},
       {"custom", std::string(200, 'v')}},
      std::string("\x00\x01\x02\xff", 4), 90s);
  auto text = renderShow(letter, kPublished, 80);
  expectWithin(text, 80);
  for (const char* part :
       {"Dead letter 7:3:-1", "exhausted", "timeout", "5:0:-1", "1m 30s ago", "History",
        "Properties", "custom", "RECONSUME_HISTORY", "binary, as base64", "AAEC/w=="}) {
    EXPECT_NE(text.find(part), std::string::npos) << "no '" << part << "' in\n" << text;
  }
  auto textPayload = renderShow(deadLetter({}, std::string(5000, 'a')), kPublished, 80, 100);
  EXPECT_NE(textPayload.find(std::string(100, 'a')), std::string::npos);
  EXPECT_EQ(textPayload.find(std::string(101, 'a')), std::string::npos);
  EXPECT_NE(textPayload.find("4900 more bytes"), std::string::npos);
}

TEST(DlqView, JsonForMachines) {
  auto letter = deadLetter({{"DEAD_LETTER_CAUSE", "explicit"},
                            {"RECONSUME_REASON", "bad"},
                            {"REAL_TOPIC", "persistent://public/default/orders"}},
                           "payload", 5s);
  auto item = boost::json::parse(listItemJson(letter, kPublished)).as_object();
  EXPECT_EQ(item.at("id").as_string(), "7:3:-1");
  EXPECT_EQ(item.at("ageMs").as_int64(), 5000);
  EXPECT_EQ(item.at("cause").as_string(), "explicit");
  EXPECT_EQ(item.at("originTopic").as_string(), "persistent://public/default/orders");
  EXPECT_TRUE(item.at("key").is_null());

  ReplayResult result;
  result.matched = 2;
  result.replayed = 1;
  result.failed = 1;
  result.error = "broker said no";
  result.items = {{MessageId(1, 2), "persistent://public/default/o", MessageId(9, 9),
                   ReplayOutcome::replayed, ""},
                  {MessageId(1, 3), "persistent://public/default/o", std::nullopt,
                   ReplayOutcome::failed, "broker said no"}};
  auto replay = boost::json::parse(replayJson(result)).as_object();
  EXPECT_EQ(replay.at("replayed").as_int64(), 1);
  EXPECT_EQ(replay.at("error").as_string(), "broker said no");
  EXPECT_EQ(replay.at("items").as_array()[0].as_object().at("newId").as_string(), "9:9:-1");
  EXPECT_EQ(replay.at("items").as_array()[1].as_object().at("outcome").as_string(), "failed");

  detail::dlq::StatsBuilder builder(kPublished);
  builder.add(letter);
  auto stats = boost::json::parse(statsJson(builder.stats(), "t", "s")).as_object();
  EXPECT_EQ(stats.at("count").as_int64(), 1);
  EXPECT_EQ(stats.at("byCause").as_object().at("explicit").as_int64(), 1);
  EXPECT_EQ(stats.at("ages").as_array().size(), 7u);
  EXPECT_EQ(stats.at("ages").as_array()[0].as_object().at("count").as_int64(), 1);
}

}  // namespace
}  // namespace reconsume::tools
