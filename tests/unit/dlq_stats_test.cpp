// Counting dead letters by cause, origin, reason and age.
#include <gtest/gtest.h>

#include "dlq/stats.hpp"
#include "dlq_test_messages.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::StoredMessage;

TEST(DeadLetterAgeBuckets, BoundsAreExclusiveAndTheLastIsOpen) {
  auto buckets = emptyAgeBuckets();
  std::vector<std::string> labels;
  for (const auto& bucket : buckets) labels.push_back(bucket.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"<1m", "<10m", "<1h", "<6h", "<1d", "<7d", "older"}));
  EXPECT_FALSE(buckets.back().below);
  EXPECT_EQ(ageBucketOf(0ms), 0u);
  EXPECT_EQ(ageBucketOf(59'999ms), 0u);
  EXPECT_EQ(ageBucketOf(1min), 1u);
  EXPECT_EQ(ageBucketOf(10min), 2u);
  EXPECT_EQ(ageBucketOf(1h), 3u);
  EXPECT_EQ(ageBucketOf(6h), 4u);
  EXPECT_EQ(ageBucketOf(24h), 5u);
  EXPECT_EQ(ageBucketOf(7 * 24h - 1ms), 5u);
  EXPECT_EQ(ageBucketOf(7 * 24h), 6u);
  EXPECT_EQ(ageBucketOf(400 * 24h), 6u);
}

TEST(DeadLetterStatsBuilder, CountsByCauseOriginReasonCategoryAndAge) {
  auto now = StoredMessage{}.publishTime + 30 * 24h;
  StatsBuilder builder(now);
  struct Case {
    std::map<std::string, std::string> properties;
    std::chrono::milliseconds age;
    std::string payload;
  };
  std::vector<Case> cases = {
      {{{"DEAD_LETTER_CAUSE", "exhausted"},
        {"REAL_TOPIC", "persistent://public/default/orders"},
        {"RECONSUME_REASON", "timeout"}},
       30s,
       "abc"},
      {{{"DEAD_LETTER_CAUSE", "exhausted"},
        {"REAL_TOPIC", "persistent://public/default/orders"},
        {"RECONSUME_REASON", "timeout"},
        {"REPLAY_COUNT", "1"}},
       2h,
       "de"},
      {{{"DEAD_LETTER_CAUSE", "explicit"},
        {"REAL_TOPIC", "persistent://public/default/payments"},
        {"RECONSUME_REASON", "invalid order"},
        {"RECONSUME_CATEGORY", "invalid"}},
       3 * 24h,
       ""},
      {{{"REAL_TOPIC", "persistent://public/default/orders"}}, 20 * 24h, "xyzw"},  // Java
      {{}, 5min, "q"},
  };
  for (const auto& c : cases) {
    StoredMessage stored;
    stored.properties = c.properties;
    stored.publishTime = now - c.age;
    stored.payload = c.payload;
    builder.add(DeadLetter::from(stored.build()));
  }
  const auto& stats = builder.stats();
  EXPECT_EQ(stats.count, 5u);
  EXPECT_EQ(stats.payloadBytes, 10u);
  EXPECT_EQ(stats.byCause, (std::map<std::string, std::size_t>{
                               {"exhausted", 2}, {"explicit", 1}, {"unknown", 2}}));
  EXPECT_EQ(stats.byOrigin,
            (std::map<std::string, std::size_t>{{"", 1},
                                                {"persistent://public/default/orders", 3},
                                                {"persistent://public/default/payments", 1}}));
  EXPECT_EQ(stats.byReason,
            (std::map<std::string, std::size_t>{{"", 2}, {"invalid order", 1}, {"timeout", 2}}));
  EXPECT_EQ(stats.byCategory, (std::map<std::string, std::size_t>{{"-", 4}, {"invalid", 1}}));
  std::vector<std::size_t> ages;
  for (const auto& bucket : stats.ages) ages.push_back(bucket.count);
  EXPECT_EQ(ages, (std::vector<std::size_t>{1, 1, 0, 1, 0, 1, 1}));
  EXPECT_EQ(stats.oldest, now - 20 * 24h);
  EXPECT_EQ(stats.newest, now - 30s);
  EXPECT_EQ(stats.replayedBefore, 1u);
}

TEST(DeadLetterStatsBuilder, OriginsAreCountedByTopicWithTheirPartitions) {
  StatsBuilder builder(StoredMessage{}.publishTime);
  for (const char* origin : {"persistent://public/default/orders-partition-0",
                             "persistent://public/default/orders-partition-3",
                             "persistent://public/default/orders", "orders-partition-3",
                             "persistent://public/default/payments-partition-1", "not a / topic"}) {
    StoredMessage stored;
    stored.properties = {{"REAL_TOPIC", origin}};
    builder.add(DeadLetter::from(stored.build()));
  }
  EXPECT_EQ(builder.stats().byOrigin,
            (std::map<std::string, std::size_t>{{"not a / topic", 1},
                                                {"persistent://public/default/orders", 4},
                                                {"persistent://public/default/payments", 1}}));
}

TEST(DeadLetterStatsBuilder, NothingAddedHasEveryBucketAtZero) {
  StatsBuilder builder(std::chrono::system_clock::now());
  EXPECT_EQ(builder.stats().count, 0u);
  EXPECT_EQ(builder.stats().ages.size(), 7u);
  EXPECT_FALSE(builder.stats().oldest);
}

}  // namespace
}  // namespace reconsume::detail::dlq
