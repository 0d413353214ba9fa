#include "retry/retry_properties.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "expect_error.hpp"
#include "retry/retry_history.hpp"

namespace reconsume::detail::retry {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using PropertyMap = std::map<std::string, std::string>;
namespace json = boost::json;

const auto kNow = std::chrono::system_clock::time_point(1'700'000'000'000ms);
const std::string kNowMs = "1700000000000";
const MessageId kOriginId(42, 7, -1);
constexpr std::string_view kTopic = "persistent://shop/orders/created";
constexpr std::string_view kSubscription = "billing";

Route retryRoute(int count, milliseconds delay, std::optional<int> level = {}) {
  return Route{
      .destination = Destination::retryTopic, .count = count, .delay = delay, .level = level};
}
Route deadLetterRoute(int count, DeadLetterCause cause) {
  return Route{.destination = Destination::deadLetterTopic, .count = count, .cause = cause};
}

PropertyMap build(const PropertyMap& incoming, const Route& route, std::string_view reason = "",
                  const PropertyMap& custom = {}, std::string_view topic = kTopic) {
  // As maps, so that expectations read as the properties an application sees.
  return buildProperties(detail::Properties::fromMap(incoming), topic, kSubscription, kOriginId,
                         route, kNow, reason, custom)
      .toMap();
}

json::array historyOf(const PropertyMap& properties) {
  return json::parse(properties.at("RECONSUME_HISTORY")).as_array();
}

TEST(RetryProperties, FirstHopToTheRetryTopicWritesEveryRow) {
  auto out = build({{"tenant", "acme"}}, retryRoute(1, 1s, 1), "payment service timeout");
  EXPECT_EQ(out, (PropertyMap{
                     {"tenant", "acme"},
                     {"RECONSUMETIMES", "1"},
                     {"DELAY_TIME", "1000"},
                     {"REAL_TOPIC", "persistent://shop/orders/created"},
                     {"REAL_SUBSCRIPTION", "billing"},
                     {"ORIGIN_MESSAGE_ID", "42:7:-1"},
                     {"ORIGIN_MESSAGE_IDY_TIME", "42:7:-1"},
                     {"RECONSUME_LEVEL", "1"},
                     {"RECONSUME_REASON", "payment service timeout"},
                     {"FIRST_FAILURE_TIME", kNowMs},
                     {"RECONSUME_HISTORY",
                      "[{\"n\":1,\"at\":1700000000000,\"delay\":1000,"
                      "\"reason\":\"payment service timeout\"}]"},
                 }));
}

TEST(RetryProperties, RealTopicIsTheFullNameWithoutThePartition) {
  EXPECT_EQ(build({}, retryRoute(1, 1s), "", {}, "persistent://shop/orders/created-partition-3")
                .at("REAL_TOPIC"),
            "persistent://shop/orders/created");
  EXPECT_EQ(build({}, retryRoute(1, 1s), "", {}, "created").at("REAL_TOPIC"),
            "persistent://public/default/created");
  EXPECT_EQ(
      build({}, retryRoute(1, 1s), "", {}, "non-persistent://a/b/c-partition-0").at("REAL_TOPIC"),
      "non-persistent://a/b/c");
}

TEST(RetryProperties, OriginIdHasTheBatchIndexWhenBatched) {
  auto out = buildProperties({}, kTopic, kSubscription, MessageId(5, 9, 2, 3), retryRoute(1, 1s),
                             kNow, "", {});
  EXPECT_EQ(out.at("ORIGIN_MESSAGE_ID"), "5:9:2:3");
  EXPECT_EQ(out.at("ORIGIN_MESSAGE_IDY_TIME"), "5:9:2:3");
}

TEST(RetryProperties, FirstHopWins) {
  PropertyMap incoming{{"RECONSUMETIMES", "2"},
                       {"REAL_TOPIC", "persistent://shop/orders/first"},
                       {"REAL_SUBSCRIPTION", "audit"},
                       {"ORIGIN_MESSAGE_ID", "1:1:-1"},
                       {"ORIGIN_MESSAGE_IDY_TIME", "1:1:-1"},
                       {"FIRST_FAILURE_TIME", "1600000000000"}};
  auto out = build(incoming, retryRoute(3, 10s, 3), "", {},
                   "persistent://shop/orders/created-billing-RETRY");
  EXPECT_EQ(out.at("REAL_TOPIC"), "persistent://shop/orders/first");
  EXPECT_EQ(out.at("REAL_SUBSCRIPTION"), "audit");
  EXPECT_EQ(out.at("ORIGIN_MESSAGE_ID"), "1:1:-1");
  EXPECT_EQ(out.at("ORIGIN_MESSAGE_IDY_TIME"), "1:1:-1");
  EXPECT_EQ(out.at("FIRST_FAILURE_TIME"), "1600000000000");
  EXPECT_EQ(out.at("RECONSUMETIMES"), "3");
  EXPECT_EQ(out.at("DELAY_TIME"), "10000");
}

TEST(RetryProperties, EitherOriginKeyFillsTheOther) {
  auto fromLegacy = build({{"ORIGIN_MESSAGE_IDY_TIME", "8:8:-1"}}, retryRoute(2, 1s));
  EXPECT_EQ(fromLegacy.at("ORIGIN_MESSAGE_ID"), "8:8:-1");
  auto fromModern = build({{"ORIGIN_MESSAGE_ID", "9:9:1"}}, retryRoute(2, 1s));
  EXPECT_EQ(fromModern.at("ORIGIN_MESSAGE_IDY_TIME"), "9:9:1");
}

TEST(RetryProperties, CustomOriginKeyLeavesTheOtherOneTheRealOrigin) {
  // A custom value replaces the key it names; the other origin key still carries the origin.
  auto firstHop = build({}, retryRoute(1, 1s), "", {{"ORIGIN_MESSAGE_ID", "custom"}});
  EXPECT_EQ(firstHop.at("ORIGIN_MESSAGE_ID"), "custom");
  EXPECT_EQ(firstHop.at("ORIGIN_MESSAGE_IDY_TIME"), "42:7:-1");
  auto laterHop = build({{"ORIGIN_MESSAGE_ID", "9:9:1"}}, retryRoute(2, 1s), "",
                        {{"ORIGIN_MESSAGE_ID", "custom"}});
  EXPECT_EQ(laterHop.at("ORIGIN_MESSAGE_IDY_TIME"), "9:9:1");
  auto legacyCustom = build({}, retryRoute(1, 1s), "", {{"ORIGIN_MESSAGE_IDY_TIME", "custom"}});
  EXPECT_EQ(legacyCustom.at("ORIGIN_MESSAGE_ID"), "42:7:-1");
  EXPECT_EQ(legacyCustom.at("ORIGIN_MESSAGE_IDY_TIME"), "custom");
}

TEST(RetryProperties, JavaWrittenMessageIsHandledAsIfOurKeysWereAbsent) {
  // What the Java client's reconsumeLater leaves on a message in the retry topic.
  PropertyMap java{{"RECONSUMETIMES", "2"},
                   {"DELAY_TIME", "5000"},
                   {"REAL_TOPIC", "persistent://public/default/orders"},
                   {"ORIGIN_MESSAGE_IDY_TIME", "10:3:-1"},
                   {"ORIGIN_MESSAGE_ID", "10:3:-1"},
                   {"customer", "c-17"}};
  auto route = decide(RetryPolicy::levels(DelayLevels::defaultTable()),
                      detail::Properties::fromMap(java), RetryRequest{});
  EXPECT_EQ(route.count, 3);
  EXPECT_EQ(route.level, 3);
  auto out = build(java, route, "", {}, "persistent://public/default/orders-sub-RETRY");
  EXPECT_EQ(out.at("RECONSUMETIMES"), "3");
  EXPECT_EQ(out.at("DELAY_TIME"), "10000");
  EXPECT_EQ(out.at("REAL_TOPIC"), "persistent://public/default/orders");
  EXPECT_EQ(out.at("ORIGIN_MESSAGE_ID"), "10:3:-1");
  EXPECT_EQ(out.at("RECONSUME_LEVEL"), "3");
  EXPECT_EQ(out.at("FIRST_FAILURE_TIME"), kNowMs);
  EXPECT_EQ(out.at("customer"), "c-17");
  EXPECT_EQ(out.count("RECONSUME_REASON"), 0u);
  EXPECT_EQ(historyOf(out).size(), 1u);
}

TEST(RetryProperties, DeadLetterHopWritesTheCauseAndNoNewDelayOrLevel) {
  auto exhausted = build({{"RECONSUMETIMES", "18"}},
                         deadLetterRoute(19, DeadLetterCause::exhausted), "still failing");
  EXPECT_EQ(exhausted.at("DEAD_LETTER_CAUSE"), "exhausted");
  EXPECT_EQ(exhausted.at("RECONSUMETIMES"), "19");
  EXPECT_EQ(exhausted.count("DELAY_TIME"), 0u);
  EXPECT_EQ(exhausted.count("RECONSUME_LEVEL"), 0u);
  EXPECT_EQ(exhausted.at("RECONSUME_REASON"), "still failing");
  auto entry = historyOf(exhausted).back().as_object();
  EXPECT_EQ(entry.at("n").as_int64(), 19);
  EXPECT_EQ(entry.at("delay").as_int64(), 0);

  auto explicitCall = build({{"RECONSUMETIMES", "2"}, {"DELAY_TIME", "5000"}},
                            deadLetterRoute(2, DeadLetterCause::explicitCall), "bad payload");
  EXPECT_EQ(explicitCall.at("DEAD_LETTER_CAUSE"), "explicit");
  EXPECT_EQ(explicitCall.at("RECONSUMETIMES"), "2");
  EXPECT_EQ(explicitCall.at("DELAY_TIME"), "5000");  // copied from the incoming message
}

TEST(RetryProperties, RetryDropsAStaleDeadLetterCause) {
  auto out = build({{"DEAD_LETTER_CAUSE", "exhausted"}}, retryRoute(1, 1s));
  EXPECT_EQ(out.count("DEAD_LETTER_CAUSE"), 0u);
}

TEST(RetryProperties, HopWithoutALevelRemovesTheIncomingLevel) {
  PropertyMap incoming{{"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "5"}};
  EXPECT_EQ(build(incoming, retryRoute(2, 3s)).count("RECONSUME_LEVEL"), 0u);
  EXPECT_EQ(build(incoming, retryRoute(2, 3s, 6)).at("RECONSUME_LEVEL"), "6");
}

TEST(RetryProperties, HopWithoutAReasonRemovesTheIncomingReason) {
  auto first = build({}, retryRoute(1, 1s), "timeout");
  auto second = build(first, retryRoute(2, 5s));
  EXPECT_EQ(second.count("RECONSUME_REASON"), 0u);
  auto history = historyOf(second);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].at("reason").as_string(), "timeout");
  EXPECT_EQ(history[1].at("reason").as_string(), "");
}

TEST(RetryProperties, ReasonIsCutAt1KiBWithoutSplittingACharacter) {
  std::string exact(1024, 'a');
  EXPECT_EQ(build({}, retryRoute(1, 1s), exact).at("RECONSUME_REASON"), exact);

  std::string twoByte = std::string(1023, 'a') + "\xC3\xA9";  // é straddles byte 1024
  EXPECT_EQ(build({}, retryRoute(1, 1s), twoByte).at("RECONSUME_REASON"), std::string(1023, 'a'));

  std::string threeByte = std::string(1022, 'a') + "\xE2\x82\xAC" + "tail";  // € at 1022..1024
  auto out = build({}, retryRoute(1, 1s), threeByte);
  EXPECT_EQ(out.at("RECONSUME_REASON"), std::string(1022, 'a'));
  EXPECT_EQ(historyOf(out)[0].at("reason").as_string(), std::string(1022, 'a'));

  std::string fits = std::string(1021, 'a') + "\xE2\x82\xAC" + "tail";  // € ends at byte 1024
  EXPECT_EQ(build({}, retryRoute(1, 1s), fits).at("RECONSUME_REASON"),
            std::string(1021, 'a') + "\xE2\x82\xAC");
}

TEST(RetryProperties, HistoryAppendsNewestLast) {
  PropertyMap message;
  for (int n = 1; n <= 4; ++n) {
    message = build(message, retryRoute(n, n * 1s), "try " + std::to_string(n));
  }
  auto history = historyOf(message);
  ASSERT_EQ(history.size(), 4u);
  for (int n = 1; n <= 4; ++n) {
    const auto& entry = history[n - 1].as_object();
    EXPECT_EQ(entry.at("n").as_int64(), n);
    EXPECT_EQ(entry.at("at").as_int64(), 1'700'000'000'000);
    EXPECT_EQ(entry.at("delay").as_int64(), n * 1000);
    EXPECT_EQ(entry.at("reason").as_string(), "try " + std::to_string(n));
  }
}

TEST(RetryProperties, HistoryKeepsAtMostEightEntriesDroppingTheOldest) {
  PropertyMap message;
  for (int n = 1; n <= 12; ++n) message = build(message, retryRoute(n, 1s));
  auto history = historyOf(message);
  ASSERT_EQ(history.size(), kHistoryMaxEntries);
  EXPECT_EQ(history.front().at("n").as_int64(), 5);
  EXPECT_EQ(history.back().at("n").as_int64(), 12);
}

TEST(RetryProperties, HistoryKeepsAtMost4KiBDroppingTheOldest) {
  PropertyMap message;
  std::string longReason(1000, 'r');
  for (int n = 1; n <= 6; ++n) message = build(message, retryRoute(n, 1s), longReason);
  const auto& text = message.at("RECONSUME_HISTORY");
  EXPECT_LE(text.size(), kHistoryMaxBytes);
  auto history = historyOf(message);
  // Each entry is a little over 1 KiB, so only three fit.
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history.front().at("n").as_int64(), 4);
  EXPECT_EQ(history.back().at("n").as_int64(), 6);
}

TEST(RetryProperties, HistoryStaysValidAndBoundedForReasonsThatNeedEscaping) {
  std::string controls(1024, '\x01');  // each becomes \u0001: 6 KiB escaped
  auto out = build({}, retryRoute(1, 1s), controls);
  EXPECT_LE(out.at("RECONSUME_HISTORY").size(), kHistoryMaxBytes);
  auto reason = std::string(historyOf(out)[0].at("reason").as_string());
  EXPECT_GT(reason.size(), 500u);
  EXPECT_EQ(reason, std::string(reason.size(), '\x01'));

  auto quoted = build({}, retryRoute(1, 1s), "say \"hi\"\\\n\t");
  EXPECT_EQ(historyOf(quoted)[0].at("reason").as_string(), "say \"hi\"\\\n\t");
}

TEST(RetryProperties, HistoryReplacesInvalidUtf8SoItStaysValidJson) {
  auto out = build({}, retryRoute(1, 1s), "bad \xFF\xC3 byte");
  EXPECT_EQ(out.at("RECONSUME_REASON"), "bad \xFF\xC3 byte");  // the property keeps the bytes
  EXPECT_EQ(historyOf(out)[0].at("reason").as_string(), "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
}

TEST(RetryProperties, MalformedOrForeignHistoryStartsANewArray) {
  for (const char* previous : {"not json", "[{\"n\":1}", "{\"n\":1}", "42", "\"[]\"", "[1,2] x"}) {
    auto out = build({{"RECONSUME_HISTORY", previous}}, retryRoute(2, 1s), "again");
    auto history = historyOf(out);
    ASSERT_EQ(history.size(), 1u) << previous;
    EXPECT_EQ(history[0].at("n").as_int64(), 2);
  }
}

TEST(RetryProperties, ForeignEntriesOfAValidArrayAreKeptVerbatim) {
  auto out =
      build({{"RECONSUME_HISTORY", " [ 1 , {\"x\":\"a,]}\"} ,[2,[3]] ] "}}, retryRoute(2, 1s));
  EXPECT_EQ(out.at("RECONSUME_HISTORY"),
            "[1,{\"x\":\"a,]}\"},[2,[3]],{\"n\":2,\"at\":1700000000000,\"delay\":1000,"
            "\"reason\":\"\"}]");
  auto empty = build({{"RECONSUME_HISTORY", "[]"}}, retryRoute(1, 1s));
  EXPECT_EQ(historyOf(empty).size(), 1u);
}

TEST(RetryProperties, CustomPropertiesOverrideEverythingButTheCount) {
  PropertyMap custom{
      {"RECONSUMETIMES", "99"},    {"DELAY_TIME", "1"},    {"REAL_TOPIC", "persistent://x/y/z"},
      {"RECONSUME_HISTORY", "[]"}, {"tenant", "override"}, {"extra", "yes"}};
  auto out = build({{"tenant", "acme"}}, retryRoute(4, 8s, 4), "why", custom);
  EXPECT_EQ(out.at("RECONSUMETIMES"), "4");
  EXPECT_EQ(out.at("DELAY_TIME"), "1");
  EXPECT_EQ(out.at("REAL_TOPIC"), "persistent://x/y/z");
  EXPECT_EQ(out.at("RECONSUME_HISTORY"), "[]");
  EXPECT_EQ(out.at("tenant"), "override");
  EXPECT_EQ(out.at("extra"), "yes");
  EXPECT_EQ(out.at("RECONSUME_LEVEL"), "4");
}

TEST(RetryProperties, KeysOfEveryKindOfFirstByteKeepTheBlockInByteOrder) {
  // Sharing a first byte with ours, below them, between them and above them, and multi-byte
  // UTF-8 (first bytes of 0x80 and more, which sort after every ASCII key).
  const PropertyMap incoming{{"0", "a"},    {"DELAY", "b"}, {"RE", "c"},         {"REAL_X", "d"},
                             {"\x7f", "e"}, {"zz", "f"},    {"\xc3\x89TAT", "g"}};
  const PropertyMap custom{{"\xce\xa9", "h"}, {"REASON", "i"}, {"A", "j"}};
  auto properties = buildProperties(Properties::fromMap(incoming), kTopic, kSubscription, kOriginId,
                                    retryRoute(1, 1s, 1), kNow, "why", custom);
  for (std::size_t i = 1; i < properties.size(); ++i) {
    EXPECT_LT(properties[i - 1].key, properties[i].key) << "entry " << i;
  }
  for (const auto* given : {&incoming, &custom}) {
    for (const auto& [key, value] : *given) {
      EXPECT_EQ(properties.find(key), std::optional<std::string_view>(value)) << key;
    }
  }
  EXPECT_EQ(properties.find("RECONSUMETIMES"), std::optional<std::string_view>("1"));
  EXPECT_EQ(properties.size(), incoming.size() + custom.size() + 10);
}

TEST(RetryProperties, InvalidOriginTopicIsAnErrorNamingIt) {
  auto text =
      testing::invalidArgumentText([] { build({}, retryRoute(1, 1s), "", {}, "kafka://a/b/c"); });
  EXPECT_TRUE(testing::mentions(text, "kafka://a/b/c"));
}

TEST(RetryProperties, IncomingPropertiesAreNotChanged) {
  const PropertyMap incoming{{"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "1"}, {"a", "b"}};
  PropertyMap copy = incoming;
  build(copy, retryRoute(2, 5s));
  EXPECT_EQ(copy, incoming);
}

}  // namespace
}  // namespace reconsume::detail::retry
