// Publishing: message ids, what a delivered message carries, and the refusals of a send.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;

TEST(EmbeddedPublish, EntriesAreNumberedFromZeroOnEachTopicsOwnLedger) {
  Harness harness;
  auto first = harness.producer(topicName("a"));
  auto second = harness.producer(topicName("b"));
  auto a0 = send(*first, "a0");
  auto a1 = send(*first, "a1");
  auto b0 = send(*second, "b0");
  EXPECT_EQ(a0.entry(), 0);
  EXPECT_EQ(a1.entry(), 1);
  EXPECT_EQ(a1.ledger(), a0.ledger());
  EXPECT_EQ(b0.entry(), 0);
  EXPECT_GT(b0.ledger(), a0.ledger());  // broker-unique, increasing
  EXPECT_EQ(a0.partition(), -1);
  EXPECT_EQ(a0.batchIndex(), -1);
}

TEST(EmbeddedPublish, PartitionIndexComesFromTheTopicName) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 3);
  auto topic = topicName("p-partition-2");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  auto id = send(*producer, "x");
  EXPECT_EQ(id.partition(), 2);
  ASSERT_EQ(sink->count(), 1u);
  EXPECT_EQ(sink->messages()[0]->topic, topic);
  EXPECT_EQ(sink->messages()[0]->id, id);
}

TEST(EmbeddedPublish, DeliveredMessageCarriesWhatWasSent) {
  Harness harness;
  auto topic = topicName("t");
  ProducerOptions options;
  options.producerName = "the-producer";
  auto producer = harness.producer(topic, options);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);

  OutgoingMessage message;
  message.payload = std::string("bytes\0with a zero", 17);
  message.properties = {{"RECONSUMETIMES", "3"}, {"a", "b"}};
  message.key = "a2V5";
  message.keyIsBase64 = true;
  message.orderingKey = "order";
  message.eventTime = ManualClock::defaultStart() - 5s;
  harness.clock->advance(1234ms);
  auto id0 = send(*producer, message);
  auto id1 = send(*producer, "second");

  ASSERT_EQ(sink->count(), 2u);
  const auto& got = *sink->messages()[0];
  EXPECT_EQ(got.topic, topic);
  EXPECT_EQ(got.id, id0);
  EXPECT_EQ(got.payload, message.payload);
  EXPECT_EQ(got.properties.toMap(), message.properties);
  EXPECT_EQ(got.partitionKey, std::optional<std::string>("a2V5"));
  EXPECT_TRUE(got.partitionKeyIsBase64);
  EXPECT_EQ(got.orderingKey, std::optional<std::string>("order"));
  auto startMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                     ManualClock::defaultStart().time_since_epoch())
                     .count();
  EXPECT_EQ(got.eventTimeMs, std::optional<std::uint64_t>(startMs - 5000));
  EXPECT_EQ(got.publishTimeMs, static_cast<std::uint64_t>(startMs + 1234));
  EXPECT_EQ(got.producerName, "the-producer");
  EXPECT_EQ(got.sequenceId, 0u);
  EXPECT_EQ(got.redeliveryCount, 0);
  EXPECT_EQ(sink->messages()[1]->sequenceId, 1u);
  EXPECT_EQ(sink->messages()[1]->id, id1);
  EXPECT_FALSE(sink->messages()[1]->partitionKey);
}

TEST(EmbeddedPublish, BrokerNamesProducersThatHaveNone) {
  Harness harness;
  auto topic = topicName("t");
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  send(*harness.producer(topic), "one");
  send(*harness.producer(topic), "two");
  ASSERT_EQ(sink->count(), 2u);
  EXPECT_FALSE(sink->messages()[0]->producerName.empty());
  EXPECT_NE(sink->messages()[0]->producerName, sink->messages()[1]->producerName);
}

TEST(EmbeddedPublish, ProducerNameInUseOnTheTopicIsRefused) {
  Harness harness;
  ProducerOptions options;
  options.producerName = "twin";
  auto first = harness.producer(topicName("t"), options);
  auto error = thrownBy([&] { harness.producer(topicName("t"), options); });
  EXPECT_EQ(error.code(), errc::broker_error);
  EXPECT_NE(std::string(error.what()).find("'twin'"), std::string::npos);
  EXPECT_NO_THROW(harness.producer(topicName("other"), options));
  callStatus([&](auto done) { first->close(done); }).raiseIfFailed();
  EXPECT_NO_THROW(harness.producer(topicName("t"), options));
}

TEST(EmbeddedPublish, MessagesArriveInTheOrderSent) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::exclusive, sink);
  std::vector<std::string> sent;
  for (int i = 0; i < 100; ++i) {
    sent.push_back("m" + std::to_string(i));
    send(*producer, sent.back());
  }
  EXPECT_EQ(sink->payloads(), sent);
}

// Counted as Pulsar's producer counts it (protocol/wire_size.hpp): payload, properties and keys
// with their metadata's framing, producer name, sequence id and publish time.
TEST(EmbeddedPublish, TooLargeCountsTheMessageWithItsMetadataAndNamesSizeAndLimit) {
  Harness harness(uniqueBrokerName(), "?maxMessageSize=200");
  auto producer = harness.producer(topicName("t"));
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink);

  OutgoingMessage message;
  message.properties = {{"k", "12345"}};  // 6
  message.key = "ab";                     // 2
  message.orderingKey = "cd";             // 2
  MessageId id;
  std::size_t fits = 0;  // the longest payload stored
  for (std::size_t length = 0; length <= 200; ++length) {
    message.payload = std::string(length, 'x');
    if (!trySend(*producer, message, id).ok()) break;
    fits = length;
  }
  EXPECT_EQ(sink->count(), fits + 1);
  EXPECT_LT(fits + 10, 200u - 20) << "the metadata counts: producer name, sequence id, time";
  message.payload = std::string(fits + 1, 'x');
  auto status = trySend(*producer, message, id);
  EXPECT_EQ(status.code, errc::too_large);
  EXPECT_NE(status.message.find("message of 201 bytes"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("maximum message size 200"), std::string::npos) << status.message;
  EXPECT_EQ(sink->count(), fits + 1);  // nothing more stored
}

TEST(EmbeddedPublish, NegativeDeliverAfterIsRefusedNamingIt) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink);
  OutgoingMessage message;
  message.deliverAfter = -5ms;
  MessageId id;
  auto status = trySend(*producer, message, id);
  EXPECT_EQ(status.code, errc::invalid_argument);
  EXPECT_NE(status.message.find("-5ms"), std::string::npos) << status.message;
  EXPECT_EQ(harness.backlog(topicName("t"), "s"), 0);  // nothing stored
}

TEST(EmbeddedPublish, DeliverAfterTogetherWithDeliverAtIsRefused) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink);
  OutgoingMessage message;
  message.deliverAfter = 5ms;
  message.deliverAt = harness.clock->now();
  MessageId id;
  auto status = trySend(*producer, message, id);
  EXPECT_EQ(status.code, errc::invalid_argument);
  EXPECT_NE(status.message.find("deliverAfter (5ms) and deliverAt"), std::string::npos);
  EXPECT_EQ(harness.backlog(topicName("t"), "s"), 0);
}

TEST(EmbeddedPublish, TerminatedTopicRefusesSendsAndNewProducers) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  send(*producer, "before");
  harness.admin->terminateTopic(topic);
  MessageId id;
  OutgoingMessage message;
  auto status = trySend(*producer, message, id);
  EXPECT_EQ(status.code, errc::broker_error);
  EXPECT_NE(status.message.find("topic " + topic + " is terminated"), std::string::npos);
  auto error = thrownBy([&] { harness.producer(topic); });
  EXPECT_EQ(error.code(), errc::broker_error);
}

TEST(EmbeddedPublish, InitialSubscriptionRetainsEveryMessageFromTheFirst) {
  Harness harness;
  auto topic = topicName("dlq");
  ProducerOptions options;
  options.initialSubscription = "keeper";
  auto producer = harness.producer(topic, options);
  ASSERT_EQ(harness.admin->subscriptions(topic).size(), 1u);
  EXPECT_EQ(harness.backlog(topic, "keeper"), 0);
  send(*producer, "one");
  send(*producer, "two");
  EXPECT_EQ(harness.backlog(topic, "keeper"), 2);
  // The subscription exists, so the consumer's initial position does not matter any more.
  auto sink = std::make_shared<RecordingSink>();
  auto consumer =
      harness.subscribe(topic, "keeper", SubscriptionType::shared, sink, InitialPosition::latest);
  EXPECT_EQ(sink->payloads(), (std::vector<std::string>{"one", "two"}));
}

TEST(EmbeddedPublish, InitialSubscriptionLeavesAnExistingOneAlone) {
  Harness harness;
  auto topic = topicName("dlq");
  auto first = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "keeper", SubscriptionType::shared, sink);
  send(*first, "one");
  send(*first, "two");
  ack(*consumer, *sink->messages()[0]);
  ProducerOptions options;
  options.initialSubscription = "keeper";
  auto second = harness.producer(topic, options);
  EXPECT_EQ(harness.backlog(topic, "keeper"), 1);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
