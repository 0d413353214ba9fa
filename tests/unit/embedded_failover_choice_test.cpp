#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/murmur3.hpp"
#include "embedded/failover_choice.hpp"

namespace reconsume::detail::embedded {
namespace {

const std::string kTopic = "persistent://public/default/orders";

TEST(FailoverChoice, OnAPartitionTheConsumersTakePartitionsInTurn) {
  std::vector<std::string_view> names{"a", "b", "c"};
  EXPECT_EQ(failoverActiveIndex(kTopic + "-partition-0", 0, names), 0u);
  EXPECT_EQ(failoverActiveIndex(kTopic + "-partition-4", 4, names), 1u);
  EXPECT_EQ(failoverActiveIndex(kTopic + "-partition-5", 5, names), 2u);
}

TEST(FailoverChoice, OnATopicTheConsumerAtOrAfterTheTopicsHashOnTheRingIsActive) {
  // Worked out by hand from the ring's definition: the replica hashes of "a" and "b" nearest
  // at or above the topic's hash decide; the winner must own that point.
  std::vector<std::string_view> names{"a", "b"};
  const auto topicHash = murmur3Hash(kTopic);
  std::int64_t best = -1;
  std::size_t owner = 0;
  std::int64_t lowest = -1;
  std::size_t lowestOwner = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (int replica = 0; replica < 100; ++replica) {
      auto hash = murmur3Hash(std::string(names[i]) + std::to_string(replica));
      if (hash >= topicHash && (best < 0 || hash <= best)) best = hash, owner = i;
      if (lowest < 0 || hash <= lowest) lowest = hash, lowestOwner = i;
    }
  }
  EXPECT_EQ(failoverActiveIndex(kTopic, -1, names), best >= 0 ? owner : lowestOwner);
}

TEST(FailoverChoice, AmongNamelessConsumersTheLastSortedOneIsActive) {
  // Equal names hash to the same points; the broker's ring keeps the later consumer's. So on
  // Pulsar, nameless consumers hand the active role to whichever joined last: why the client
  // names every consumer.
  std::vector<std::string_view> nameless{"", "", ""};
  EXPECT_EQ(failoverActiveIndex(kTopic, -1, nameless), 2u);
}

TEST(FailoverChoice, ASingleConsumerIsAlwaysActive) {
  std::vector<std::string_view> one{"only"};
  EXPECT_EQ(failoverActiveIndex(kTopic, -1, one), 0u);
  EXPECT_EQ(failoverActiveIndex(kTopic + "-partition-7", 7, one), 0u);
}

}  // namespace
}  // namespace reconsume::detail::embedded
