#include <gtest/gtest.h>

#include "pulsar/pending_requests.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using TimePoint = PendingRequests::TimePoint;

const TimePoint kRequestsStart = TimePoint() + 1h;

struct Outcomes {
  std::map<int, std::vector<Response>> byIndex;
  ResponseCallback callback(int index) {
    return [this, index](Response r) { byIndex[index].push_back(std::move(r)); };
  }
};

TEST(PulsarPendingRequests, AnAnsweredRequestLeavesTheTable) {
  PendingRequests table;
  Outcomes outcomes;
  ASSERT_TRUE(table.add(1, kRequestsStart, 1s, "LOOKUP a", outcomes.callback(1)));
  ASSERT_TRUE(table.add(2, kRequestsStart, 2s, "LOOKUP b", outcomes.callback(2)));
  EXPECT_FALSE(table.add(2, kRequestsStart, 2s, "again", outcomes.callback(3))) << "ids are unique";
  auto callback = table.take(2);
  ASSERT_TRUE(callback);
  (*callback)(Response{});
  EXPECT_FALSE(table.take(2)) << "an answer is taken once";
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.nextDeadline(), kRequestsStart + 1s);
  EXPECT_EQ(outcomes.byIndex[2].size(), 1u);
  EXPECT_TRUE(outcomes.byIndex[3].empty());
}

TEST(PulsarPendingRequests, ExpiryTakesExactlyTheDueRequestsWithATimeoutNamingThem) {
  PendingRequests table;
  Outcomes outcomes;
  table.add(1, kRequestsStart, 100ms, "LOOKUP a", outcomes.callback(1));
  table.add(2, kRequestsStart, 300ms, "SUBSCRIBE b", outcomes.callback(2));
  table.add(3, kRequestsStart, 100ms, "SEEK c", outcomes.callback(3));
  EXPECT_TRUE(table.expire(kRequestsStart + 99ms).empty());
  auto due = table.expire(kRequestsStart + 100ms);
  ASSERT_EQ(due.size(), 2u);
  for (auto& completion : due) completion();
  ASSERT_EQ(outcomes.byIndex[1].size(), 1u);
  EXPECT_EQ(outcomes.byIndex[1][0].status.code, errc::timeout);
  EXPECT_EQ(outcomes.byIndex[1][0].status.message,
            "LOOKUP a (request 1) got no answer within 100 ms");
  EXPECT_EQ(outcomes.byIndex[3][0].status.code, errc::timeout);
  EXPECT_FALSE(table.take(1)) << "a late answer finds nothing";
  EXPECT_EQ(table.nextDeadline(), kRequestsStart + 300ms);
  EXPECT_EQ(table.size(), 1u);
}

TEST(PulsarPendingRequests, TakeAllCompletesEachOnceWithTheGivenStatus) {
  PendingRequests table;
  Outcomes outcomes;
  for (int i = 1; i <= 3; ++i) {
    table.add(static_cast<std::uint64_t>(i), kRequestsStart, std::chrono::seconds(i),
              "R" + std::to_string(i), outcomes.callback(i));
  }
  auto all = table.takeAll(Status(errc::closed, "the client is closed"));
  ASSERT_EQ(all.size(), 3u);
  for (auto& completion : all) completion();
  EXPECT_TRUE(table.empty());
  EXPECT_FALSE(table.nextDeadline());
  EXPECT_TRUE(table.expire(kRequestsStart + 1h).empty()) << "nothing left to time out";
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(outcomes.byIndex[i].size(), 1u);
    EXPECT_EQ(outcomes.byIndex[i][0].status.code, errc::closed);
    EXPECT_EQ(outcomes.byIndex[i][0].status.message,
              "R" + std::to_string(i) + ": the client is closed");
  }
}

TEST(PulsarPendingRequests, AFailedConnectAttemptEndsOnlyTheFailFastRequests) {
  PendingRequests table;
  Outcomes outcomes;
  table.add(1, kRequestsStart, 1s, "LOOKUP a", outcomes.callback(1), /*failFast=*/true);
  table.add(2, kRequestsStart, 2s, "SUBSCRIBE b", outcomes.callback(2));
  table.add(3, kRequestsStart, 3s, "PARTITIONED_METADATA c", outcomes.callback(3),
            /*failFast=*/true);
  auto failed = table.takeFailFast(Status(errc::connection_lost, "connecting to x failed"));
  ASSERT_EQ(failed.size(), 2u);
  for (auto& completion : failed) completion();
  EXPECT_EQ(outcomes.byIndex[1].at(0).status.code, errc::connection_lost);
  EXPECT_EQ(outcomes.byIndex[1].at(0).status.message, "LOOKUP a: connecting to x failed");
  EXPECT_EQ(outcomes.byIndex[3].size(), 1u);
  EXPECT_TRUE(outcomes.byIndex[2].empty()) << "the others wait on";
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.nextDeadline(), kRequestsStart + 2s);
  EXPECT_TRUE(table.takeFailFast(Status(errc::connection_lost, "again")).empty());
}

}  // namespace
}  // namespace reconsume::detail::pulsar
