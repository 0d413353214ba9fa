// The embedded broker's admin operations and partitioned topics.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

int backendPartitions(Harness& harness, const std::string& topic) {
  int count = -1;
  callStatus([&](auto done) { harness.backend->partitions(topic, done); }, count).raiseIfFailed();
  return count;
}

TEST(EmbeddedAdmin, CreatesPartitionedTopicsWithNamedPartitions) {
  Harness harness;
  auto topic = topicName("orders");
  harness.admin->createPartitionedTopic(topic, 3);
  EXPECT_EQ(harness.admin->partitions(topic), 3);
  EXPECT_EQ(backendPartitions(harness, topic), 3);
  EXPECT_TRUE(harness.admin->topicExists(topic));
  for (int i = 0; i < 3; ++i) {
    auto partition = topicName("orders-partition-" + std::to_string(i));
    EXPECT_TRUE(harness.admin->topicExists(partition)) << partition;
    EXPECT_EQ(backendPartitions(harness, partition), 0);
  }
  EXPECT_FALSE(harness.admin->topicExists(topicName("orders-partition-3")));
}

TEST(EmbeddedAdmin, PartitionsIsZeroForPlainAndUnknownTopics) {
  Harness harness;
  harness.producer(topicName("plain"));
  EXPECT_EQ(harness.admin->partitions(topicName("plain")), 0);
  EXPECT_EQ(harness.admin->partitions(topicName("unknown")), 0);
  EXPECT_EQ(backendPartitions(harness, topicName("unknown")), 0);
}

TEST(EmbeddedAdmin, CreatingATopicThatExistsFails) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  auto again = thrownBy([&] { harness.admin->createPartitionedTopic(topicName("p"), 2); });
  EXPECT_EQ(again.code(), errc::broker_error);
  EXPECT_NE(std::string(again.what()).find(topicName("p")), std::string::npos);
  harness.producer(topicName("plain"));
  auto plain = thrownBy([&] { harness.admin->createPartitionedTopic(topicName("plain"), 2); });
  EXPECT_EQ(plain.code(), errc::broker_error);
}

TEST(EmbeddedAdmin, BadPartitionCountIsRefusedNamingIt) {
  Harness harness;
  auto error = thrownBy([&] { harness.admin->createPartitionedTopic(topicName("p"), 0); });
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(std::string(error.what()).find("with 0 partitions"), std::string::npos);
  EXPECT_FALSE(harness.admin->topicExists(topicName("p")));
}

TEST(EmbeddedAdmin, MalformedTopicNameIsInvalidArgument) {
  Harness harness;
  auto error = thrownBy([&] { harness.admin->topicExists("a/b"); });
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(std::string(error.what()).find("'a/b'"), std::string::npos);
}

TEST(EmbeddedAdmin, AttachingToAPartitionedTopicsBaseIsRefused) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  auto error = thrownBy([&] { harness.producer(topicName("p")); });
  EXPECT_EQ(error.code(), errc::broker_error);
  EXPECT_NE(std::string(error.what()).find("is partitioned (2 partitions)"), std::string::npos);
}

TEST(EmbeddedAdmin, TerminatedTopicTellsConsumersOnceEverythingIsAcknowledged) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  send(*producer, "last");
  harness.admin->terminateTopic(topic);
  EXPECT_TRUE(sink->ended().empty());
  ack(*consumer, *sink->messages()[0]);
  ASSERT_EQ(sink->ended().size(), 1u);
  EXPECT_NE(sink->ended()[0].find("terminated"), std::string::npos);
  // A consumer arriving later learns it at once.
  auto late = std::make_shared<RecordingSink>();
  auto other = harness.subscribe(topic, "s", SubscriptionType::shared, late);
  EXPECT_EQ(late->ended().size(), 1u);
  EXPECT_EQ(sink->ended().size(), 1u);
}

TEST(EmbeddedAdmin, TerminatingAPartitionedTopicTerminatesItsPartitions) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  auto producer = harness.producer(topicName("p-partition-1"));
  harness.admin->terminateTopic(topicName("p"));
  MessageId id;
  EXPECT_EQ(trySend(*producer, OutgoingMessage{}, id).code, errc::broker_error);
}

TEST(EmbeddedAdmin, UnknownTopicIsNotFound) {
  Harness harness;
  auto topic = topicName("nowhere");
  for (auto error : {thrownBy([&] { harness.admin->terminateTopic(topic); }),
                     thrownBy([&] { harness.admin->deleteTopic(topic); }),
                     thrownBy([&] { harness.admin->subscriptions(topic); })}) {
    EXPECT_EQ(error.code(), errc::not_found);
    EXPECT_NE(std::string(error.what()).find(topic), std::string::npos);
  }
}

TEST(EmbeddedAdmin, DeleteIsRefusedWhileProducersOrConsumersAreAttached) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto error = thrownBy([&] { harness.admin->deleteTopic(topic); });
  EXPECT_EQ(error.code(), errc::broker_error);
  EXPECT_NE(std::string(error.what()).find("1 producer(s)"), std::string::npos) << error.what();
  callStatus([&](auto done) { producer->close(done); }).raiseIfFailed();

  auto consumer =
      harness.subscribe(topic, "s", SubscriptionType::shared, std::make_shared<RecordingSink>());
  EXPECT_EQ(thrownBy([&] { harness.admin->deleteTopic(topic); }).code(), errc::broker_error);
  callStatus([&](auto done) { consumer->close(done); }).raiseIfFailed();
  EXPECT_TRUE(harness.admin->topicExists(topic));
}

TEST(EmbeddedAdmin, DeletedTopicStartsAfreshOnNextUse) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto before = send(*producer, "old");
  callStatus([&](auto done) { producer->close(done); }).raiseIfFailed();
  harness.admin->deleteTopic(topic);
  EXPECT_FALSE(harness.admin->topicExists(topic));

  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  auto after = send(*harness.producer(topic), "new");
  EXPECT_EQ(sink->payloads(), Strings{"new"});
  EXPECT_GT(after.ledger(), before.ledger());
  EXPECT_EQ(after.entry(), 0);
}

TEST(EmbeddedAdmin, DeletingAPartitionedTopicDeletesItsPartitions) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  harness.admin->deleteTopic(topicName("p"));
  EXPECT_FALSE(harness.admin->topicExists(topicName("p")));
  EXPECT_FALSE(harness.admin->topicExists(topicName("p-partition-0")));
  EXPECT_EQ(harness.admin->partitions(topicName("p")), 0);
}

TEST(EmbeddedAdmin, SubscriptionsListNamesAndBacklogs) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto a = harness.subscribe(topic, "a", SubscriptionType::shared, sink);
  auto b =
      harness.subscribe(topic, "b", SubscriptionType::shared, std::make_shared<RecordingSink>());
  send(*producer, "1");
  send(*producer, "2");
  ack(*a, *sink->messages()[0]);
  auto stats = harness.admin->subscriptions(topic);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "a");
  EXPECT_EQ(stats[0].backlog, 1);
  EXPECT_EQ(stats[1].name, "b");
  EXPECT_EQ(stats[1].backlog, 2);
}

TEST(EmbeddedAdmin, SubscriptionsOfAPartitionedTopicAddUpOverItsPartitions) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < 2; ++i) {
    auto partition = topicName("p-partition-" + std::to_string(i));
    consumers.push_back(harness.subscribe(partition, "s", SubscriptionType::shared,
                                          std::make_shared<RecordingSink>()));
    send(*harness.producer(partition), "m");
  }
  EXPECT_EQ(harness.backlog(topicName("p"), "s"), 2);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
