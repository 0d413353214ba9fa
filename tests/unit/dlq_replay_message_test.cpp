// What a replay republishes: count and level reset, origin and history kept, REPLAY_COUNT raised.
#include <gtest/gtest.h>

#include "dlq/replay_message.hpp"
#include "dlq_test_messages.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::StoredMessage;
using TimePoint = std::chrono::system_clock::time_point;

const TimePoint kNow(1'704'070'000'000ms);

TEST(ReplayProperties, ResetsTheCountKeepsTheOriginAndCountsTheReplay) {
  Properties deadLetter = {
      {"DEAD_LETTER_CAUSE", "exhausted"},
      {"DELAY_TIME", "7200000"},
      {"FIRST_FAILURE_TIME", "1700000000000"},
      {"ORIGIN_MESSAGE_ID", "12:5:-1"},
      {"ORIGIN_MESSAGE_IDY_TIME", "12:5:-1"},
      {"REAL_TOPIC", "persistent://public/default/orders"},
      {"REAL_SUBSCRIPTION", "billing"},
      {"RECONSUMETIMES", "19"},
      {"RECONSUME_HISTORY", R"([{"n":19,"at":1,"delay":0,"reason":"timeout"}])"},
      {"RECONSUME_LEVEL", "18"},
      {"RECONSUME_REASON", "timeout"},
      {"order-id", "7"},
  };
  Properties expected = {
      {"ORIGIN_MESSAGE_ID", "12:5:-1"},
      {"ORIGIN_MESSAGE_IDY_TIME", "12:5:-1"},
      {"REAL_TOPIC", "persistent://public/default/orders"},
      {"REAL_SUBSCRIPTION", "billing"},
      {"RECONSUME_HISTORY", R"([{"n":19,"at":1,"delay":0,"reason":"timeout"}])"},
      {"REPLAY_COUNT", "1"},
      {"REPLAYED_AT", "1704070000000"},
      {"order-id", "7"},
  };
  EXPECT_EQ(replayProperties(deadLetter, kNow), expected);
}

TEST(ReplayProperties, ASecondReplayIsVisiblyTheSecond) {
  Properties once = replayProperties({{"REAL_TOPIC", "t"}}, kNow);
  EXPECT_EQ(once.at("REPLAY_COUNT"), "1");
  // It failed again and came back to the dead-letter topic carrying REPLAY_COUNT.
  once["RECONSUMETIMES"] = "3";
  once["DEAD_LETTER_CAUSE"] = "exhausted";
  Properties twice = replayProperties(once, kNow + 1h);
  EXPECT_EQ(twice.at("REPLAY_COUNT"), "2");
  EXPECT_EQ(twice.at("REPLAYED_AT"), "1704073600000");
  EXPECT_FALSE(twice.count("RECONSUMETIMES"));
}

TEST(ReplayProperties, AReplayCountThatIsNoNumberCountsAsNone) {
  EXPECT_EQ(replayProperties({{"REPLAY_COUNT", "many"}}, kNow).at("REPLAY_COUNT"), "1");
  EXPECT_EQ(replayProperties({{"REPLAY_COUNT", "9223372036854775807"}}, kNow).at("REPLAY_COUNT"),
            "9223372036854775807")
      << "saturates instead of overflowing";
}

TEST(ReplayMessage, KeepsPayloadKeysAndEventTime) {
  StoredMessage stored;
  stored.payload = std::string("\x00\x01 binary", 9);
  stored.key = "a2V5";
  stored.keyIsBase64 = true;
  stored.orderingKey = "ordering";
  stored.eventTime = TimePoint(1'700'000'000'123ms);
  stored.properties = {{"RECONSUMETIMES", "4"}, {"REAL_TOPIC", "persistent://public/default/o"}};
  auto message = replayMessage(stored.build(), kNow);
  EXPECT_EQ(message.payload, stored.payload);
  EXPECT_EQ(message.key, "a2V5");
  EXPECT_TRUE(message.keyIsBase64);
  EXPECT_EQ(message.orderingKey, "ordering");
  EXPECT_EQ(message.eventTime, stored.eventTime);
  EXPECT_FALSE(message.deliverAfter);
  EXPECT_FALSE(message.deliverAt);
  EXPECT_EQ(message.properties, (Properties{{"REAL_TOPIC", "persistent://public/default/o"},
                                            {"REPLAYED_AT", "1704070000000"},
                                            {"REPLAY_COUNT", "1"}}));
}

}  // namespace
}  // namespace reconsume::detail::dlq
