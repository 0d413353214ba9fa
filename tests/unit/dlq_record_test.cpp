// Decoding stored dead letters: ours, the Java client's, and damaged ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "common/message_data.hpp"
#include "dlq/dead_letter_record.hpp"
#include "dlq_test_messages.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::StoredMessage;
using TimePoint = std::chrono::system_clock::time_point;

TEST(DeadLetterRecord, OriginBaseTopicIsRealTopicWithoutItsPartition) {
  auto base = [](std::optional<std::string> realTopic) {
    StoredMessage stored;
    if (realTopic) stored.properties = {{"REAL_TOPIC", *realTopic}};
    auto letter = DeadLetter::from(stored.build());
    EXPECT_EQ(letter.originTopic, realTopic) << "kept as stored";
    return letter.originBaseTopic();
  };
  EXPECT_EQ(base("persistent://shop/orders/created-partition-4"),
            "persistent://shop/orders/created");
  EXPECT_EQ(base("created-partition-0"), "persistent://public/default/created");
  EXPECT_EQ(base("persistent://shop/orders/created"), "persistent://shop/orders/created");
  EXPECT_EQ(base("created-partition-x"), "persistent://public/default/created-partition-x");
  EXPECT_EQ(base("a/b/c/d"), "a/b/c/d") << "no topic name: as stored";
  EXPECT_EQ(base(std::nullopt), std::nullopt);
}

TEST(DeadLetterRecord, DecodesWhatThisLibraryWrites) {
  StoredMessage stored;
  stored.properties = {
      {"DEAD_LETTER_CAUSE", "exhausted"},
      {"RECONSUMETIMES", "19"},
      {"RECONSUME_REASON", "payment gateway answered 503"},
      {"REAL_TOPIC", "persistent://shop/orders/created"},
      {"ORIGIN_MESSAGE_ID", "12:5:-1"},
      {"ORIGIN_MESSAGE_IDY_TIME", "12:5:-1"},
      {"FIRST_FAILURE_TIME", "1700000000000"},
      {"REPLAY_COUNT", "2"},
      {"REPLAYED_AT", "1700000500000"},
      {"RECONSUME_HISTORY",
       R"([{"n":18,"at":1700000100000,"delay":7200000,"reason":"timeout"},)"
       R"({"n":19,"at":1700000200000,"delay":0,"reason":"payment gateway answered 503"}])"},
  };
  auto letter = DeadLetter::from(stored.build());
  EXPECT_EQ(letter.cause, "exhausted");
  EXPECT_EQ(letter.reason, "payment gateway answered 503");
  EXPECT_EQ(letter.originTopic, "persistent://shop/orders/created");
  EXPECT_EQ(letter.originMessageId, "12:5:-1");
  EXPECT_EQ(letter.reconsumeTimes, 19);
  EXPECT_EQ(letter.replayCount, 2);
  EXPECT_EQ(letter.firstFailure, TimePoint(1'700'000'000'000ms));
  EXPECT_EQ(letter.replayedAt, TimePoint(1'700'000'500'000ms));
  ASSERT_EQ(letter.history.size(), 2u);
  EXPECT_EQ(letter.history[0].count, 18);
  EXPECT_EQ(letter.history[0].at, TimePoint(1'700'000'100'000ms));
  EXPECT_EQ(letter.history[0].delay, 7'200'000ms);
  EXPECT_EQ(letter.history[0].reason, "timeout");
  EXPECT_EQ(letter.history[1].delay, 0ms);
  EXPECT_TRUE(letter.hasRetryProperties);
  EXPECT_EQ(letter.id(), (MessageId{7, 3, -1}));
  EXPECT_EQ(letter.deadLetteredAt(), stored.publishTime);
}

TEST(DeadLetterRecord, JavaWrittenDeadLettersHaveCauseUnknownAndTheirOrigin) {
  // What the Java client 4.0.8 writes (tests/interop/README.md): no cause, no reason, no history.
  StoredMessage stored;
  stored.properties = {{"color", "blue"},
                       {"RECONSUMETIMES", "3"},
                       {"DELAY_TIME", "100"},
                       {"REAL_TOPIC", "persistent://public/default/orders"},
                       {"REAL_SUBSCRIPTION", "billing"},
                       {"ORIGIN_MESSAGE_ID", "5:0:-1"},
                       {"ORIGIN_MESSAGE_IDY_TIME", "5:0:-1"}};
  auto letter = DeadLetter::from(stored.build());
  EXPECT_EQ(letter.cause, "unknown");
  EXPECT_EQ(letter.reason, "");
  EXPECT_EQ(letter.originTopic, "persistent://public/default/orders");
  EXPECT_EQ(letter.originMessageId, "5:0:-1");
  EXPECT_EQ(letter.reconsumeTimes, 3);
  EXPECT_EQ(letter.replayCount, 0);
  EXPECT_TRUE(letter.history.empty());
  EXPECT_FALSE(letter.firstFailure);
  EXPECT_TRUE(letter.hasRetryProperties);
}

TEST(DeadLetterRecord, OlderClientsWriteOnlyTheLegacyOriginKey) {
  StoredMessage stored;
  stored.properties = {{"ORIGIN_MESSAGE_IDY_TIME", "9:9:-1"}};
  EXPECT_EQ(DeadLetter::from(stored.build()).originMessageId, "9:9:-1");
}

TEST(DeadLetterRecord, ReasonFallsBackToTheNewestHistoryEntry) {
  StoredMessage stored;
  stored.properties = {
      {"RECONSUME_HISTORY",
       R"([{"n":1,"at":1,"delay":1000,"reason":"first"},{"n":2,"at":2,"delay":0,"reason":"second"}])"}};
  EXPECT_EQ(DeadLetter::from(stored.build()).reason, "second");
}

TEST(DeadLetterRecord, DamagedValuesReadAsAbsent) {
  StoredMessage stored;
  stored.properties = {{"RECONSUMETIMES", "three"},
                       {"REPLAY_COUNT", "-1"},
                       {"FIRST_FAILURE_TIME", "yesterday"},
                       {"DEAD_LETTER_CAUSE", ""},
                       {"RECONSUME_HISTORY", "[{\"n\":1"}};
  auto letter = DeadLetter::from(stored.build());
  EXPECT_EQ(letter.reconsumeTimes, 0);
  EXPECT_EQ(letter.replayCount, 0);
  EXPECT_FALSE(letter.firstFailure);
  EXPECT_EQ(letter.cause, "unknown");
  EXPECT_TRUE(letter.history.empty());
}

TEST(DeadLetterRecord, HistoryOfTheWrongShapeGivesNoEntries) {
  EXPECT_TRUE(parseHistory("").empty());
  EXPECT_TRUE(parseHistory("{}").empty());
  EXPECT_TRUE(parseHistory("[1,2]").empty());
  // An entry with a missing or mistyped field is still shown.
  auto hops = parseHistory(R"([{"n":"x","reason":7},{"n":4}])");
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_EQ(hops[0].count, 0);
  EXPECT_EQ(hops[0].reason, "");
  EXPECT_EQ(hops[1].count, 4);
}

// Found by tests/fuzz/retry_history_fuzzer.cpp: an "at" beyond ±292 years overflowed the
// conversion of milliseconds to system_clock's nanoseconds (UBSan: signed integer overflow).
// Such times are now clamped to the ends of the clock's range; the same for FIRST_FAILURE_TIME,
// REPLAYED_AT and the publish and event times of Pulsar's metadata.
TEST(DeadLetterRecord, TimesBeyondTheClocksRangeAreClamped) {
  const auto hops =
      parseHistory(R"([{"n":1,"at":170000000000065284},{"n":2,"at":-9223372036854775807}])");
  ASSERT_EQ(hops.size(), 2u);
  EXPECT_GT(hops[0].at, TimePoint(std::chrono::hours(24 * 365 * 290)));
  EXPECT_LT(hops[1].at, TimePoint(-std::chrono::hours(24 * 365 * 290)));

  StoredMessage stored;
  stored.properties = {{"FIRST_FAILURE_TIME", "99999999999999999999"},
                       {"REPLAYED_AT", "9223372036854775807"}};
  const auto letter = DeadLetter::from(stored.build());
  ASSERT_TRUE(letter.firstFailure && letter.replayedAt);
  EXPECT_GT(*letter.firstFailure, TimePoint(std::chrono::hours(24 * 365 * 290)));
  EXPECT_EQ(*letter.replayedAt, *letter.firstFailure);

  auto data = std::make_shared<MessageData>();
  data->publishTimeMs = UINT64_MAX;
  data->eventTimeMs = 1'000'000'000'000'000'000;
  const Message message(data);
  EXPECT_GT(message.publishTime(), TimePoint(std::chrono::hours(24 * 365 * 290)));
  EXPECT_EQ(message.eventTime(), message.publishTime());
}

TEST(DeadLetterRecord, AMessageWithoutRetryPropertiesSaysSo) {
  StoredMessage stored;
  stored.properties = {{"color", "blue"}};
  auto letter = DeadLetter::from(stored.build());
  EXPECT_FALSE(letter.hasRetryProperties);
  EXPECT_FALSE(letter.originTopic);
  EXPECT_TRUE(isRetryProperty("REAL_SUBSCRIPTION"));
  EXPECT_TRUE(isRetryProperty("REPLAY_COUNT"));
  EXPECT_FALSE(isRetryProperty("color"));
}

TEST(DeadLetterRecord, AgeIsNowMinusThePublishTimeAndNeverNegative) {
  StoredMessage stored;
  auto letter = DeadLetter::from(stored.build());
  EXPECT_EQ(letter.age(stored.publishTime + 90s), 90'000ms);
  EXPECT_EQ(letter.age(stored.publishTime - 5s), 0ms);
}

}  // namespace
}  // namespace reconsume::detail::dlq
