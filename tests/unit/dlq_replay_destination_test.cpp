// Where replay sends a dead letter (SPEC.md §4): the chosen topic, else REAL_TOPIC, a partition's
// name going to its topic when that topic is partitioned.
#include <gtest/gtest.h>

#include "dlq/replay_destination.hpp"
#include "dlq_test_messages.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {
namespace {

using reconsume::testing::StoredMessage;

DeadLetter from(std::optional<std::string> realTopic) {
  StoredMessage stored;
  if (realTopic) stored.properties = {{"REAL_TOPIC", *realTopic}};
  return DeadLetter::from(stored.build());
}

// A broker on which "orders" has 4 partitions; it records what it was asked.
struct Broker {
  std::vector<std::string> asked;
  ReplayDestinations::PartitionsOf partitionsOf() {
    return [this](const std::string& topic) {
      asked.push_back(topic);
      return topic == "persistent://public/default/orders" ? 4 : 0;
    };
  }
};

TEST(ReplayDestination, APartitionOfAPartitionedTopicGoesToTheTopic) {
  Broker broker;
  ReplayDestinations destinations(std::nullopt, broker.partitionsOf());
  EXPECT_EQ(destinations.destinationOf(from("persistent://public/default/orders-partition-3")),
            "persistent://public/default/orders");
  EXPECT_EQ(destinations.destinationOf(from("orders-partition-0")),
            "persistent://public/default/orders");
  EXPECT_EQ(broker.asked, (std::vector<std::string>{"persistent://public/default/orders"}))
      << "asked once per topic";
}

TEST(ReplayDestination, ASuffixOfANonPartitionedTopicIsPartOfItsName) {
  Broker broker;
  ReplayDestinations destinations(std::nullopt, broker.partitionsOf());
  EXPECT_EQ(destinations.destinationOf(from("persistent://public/default/audit-partition-5")),
            "persistent://public/default/audit-partition-5");
  EXPECT_EQ(broker.asked, (std::vector<std::string>{"persistent://public/default/audit"}));
}

TEST(ReplayDestination, ATopicWithoutSuffixIsUsedAsStoredWithoutAsking) {
  Broker broker;
  ReplayDestinations destinations(std::nullopt, broker.partitionsOf());
  EXPECT_EQ(destinations.destinationOf(from("persistent://public/default/orders")),
            "persistent://public/default/orders");
  EXPECT_EQ(destinations.destinationOf(from("orders-partition-x")), "orders-partition-x");
  EXPECT_EQ(destinations.destinationOf(from("a/b/c/d")), "a/b/c/d");
  EXPECT_EQ(destinations.destinationOf(from(std::nullopt)), "") << "skipped";
  EXPECT_TRUE(broker.asked.empty());
}

TEST(ReplayDestination, AChosenTopicWinsAsGiven) {
  Broker broker;
  ReplayDestinations destinations("persistent://public/default/orders-partition-1",
                                  broker.partitionsOf());
  EXPECT_EQ(destinations.destinationOf(from("persistent://public/default/orders-partition-3")),
            "persistent://public/default/orders-partition-1");
  EXPECT_EQ(destinations.destinationOf(from(std::nullopt)),
            "persistent://public/default/orders-partition-1");
  EXPECT_TRUE(broker.asked.empty());
}

TEST(ReplayDestination, TheBrokersErrorIsThrownAndNotRemembered) {
  int calls = 0;
  ReplayDestinations destinations(std::nullopt, [&](const std::string&) -> int {
    if (++calls == 1) throw Error(errc::connection_lost, "broker gone");
    return 2;
  });
  auto letter = from("orders-partition-1");
  EXPECT_THROW((void)destinations.destinationOf(letter), Error);
  EXPECT_EQ(destinations.destinationOf(letter), "persistent://public/default/orders");
}

}  // namespace
}  // namespace reconsume::detail::dlq
