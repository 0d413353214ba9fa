// Durable subscriptions: initial positions, acknowledgements and backlog, type rules, permits.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

TEST(EmbeddedSubscription, TopicIsCreatedOnFirstUse) {
  Harness harness;
  EXPECT_FALSE(harness.admin->topicExists(topicName("by-consumer")));
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("by-consumer"), "s", SubscriptionType::shared, sink);
  EXPECT_TRUE(harness.admin->topicExists(topicName("by-consumer")));
  harness.producer(topicName("by-producer"));
  EXPECT_TRUE(harness.admin->topicExists(topicName("by-producer")));
}

TEST(EmbeddedSubscription, LatestStartsAfterTheLastMessage) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  send(*producer, "old");
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink,
                                    InitialPosition::latest);
  send(*producer, "new");
  EXPECT_EQ(sink->payloads(), Strings{"new"});
  EXPECT_EQ(harness.backlog(topicName("t"), "s"), 1);
}

TEST(EmbeddedSubscription, EarliestStartsFromTheFirstMessage) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  send(*producer, "old");
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink,
                                    InitialPosition::earliest);
  send(*producer, "new");
  EXPECT_EQ(sink->payloads(), (Strings{"old", "new"}));
}

TEST(EmbeddedSubscription, DurableSubscriptionOutlivesItsConsumers) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  for (auto p : {"a", "b", "c", "d"}) send(*producer, p);
  ack(*consumer, *sink->messages()[0]);
  ack(*consumer, *sink->messages()[1]);
  callStatus([&](auto done) { consumer->close(done); }).raiseIfFailed();
  EXPECT_EQ(harness.backlog(topic, "s"), 2);

  auto next = std::make_shared<RecordingSink>();
  auto again =
      harness.subscribe(topic, "s", SubscriptionType::shared, next, InitialPosition::latest);
  EXPECT_EQ(next->payloads(), (Strings{"c", "d"}));
}

TEST(EmbeddedSubscription, IndividualAcksLeaveTheGapsUnacknowledged) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  for (auto p : {"0", "1", "2", "3", "4"}) send(*producer, p);
  auto got = sink->messages();
  ack(*consumer, *got[0]);
  ack(*consumer, *got[2]);
  ack(*consumer, *got[4]);
  EXPECT_EQ(harness.backlog(topic, "s"), 2);
  callStatus([&](auto done) { consumer->close(done); }).raiseIfFailed();

  auto next = std::make_shared<RecordingSink>();
  auto again = harness.subscribe(topic, "s", SubscriptionType::shared, next);
  EXPECT_EQ(next->payloads(), (Strings{"1", "3"}));
  ack(*again, *next->messages()[0]);
  ack(*again, *next->messages()[1]);
  EXPECT_EQ(harness.backlog(topic, "s"), 0);
}

TEST(EmbeddedSubscription, AckingTwiceOrAnUnknownIdIsIgnored) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  send(*producer, "a");
  send(*producer, "b");
  auto first = sink->messages()[0];
  ack(*consumer, *first);
  ack(*consumer, *first);
  EXPECT_EQ(harness.backlog(topic, "s"), 1);

  MessageData unknown = *sink->messages()[1];
  unknown.id = MessageId(unknown.id.ledger(), 99);  // past the end
  ack(*consumer, unknown);
  unknown.id = MessageId(unknown.id.ledger() + 1000, 1);  // another ledger
  ack(*consumer, unknown);
  unknown.id = MessageId::latest();
  ack(*consumer, unknown);
  EXPECT_EQ(harness.backlog(topic, "s"), 1);
}

TEST(EmbeddedSubscription, EachSubscriptionGetsEveryMessage) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto one = std::make_shared<RecordingSink>();
  auto two = std::make_shared<RecordingSink>();
  auto c1 = harness.subscribe(topic, "one", SubscriptionType::shared, one);
  auto c2 = harness.subscribe(topic, "two", SubscriptionType::exclusive, two);
  send(*producer, "x");
  send(*producer, "y");
  EXPECT_EQ(one->payloads(), (Strings{"x", "y"}));
  EXPECT_EQ(two->payloads(), (Strings{"x", "y"}));
  ack(*c1, *one->messages()[0]);
  EXPECT_EQ(harness.backlog(topic, "one"), 1);
  EXPECT_EQ(harness.backlog(topic, "two"), 2);
}

TEST(EmbeddedSubscription, AnotherTypeIsRefusedWhileConsumersAreAttached) {
  Harness harness;
  auto first = harness.subscribe(topicName("t"), "orders", SubscriptionType::shared,
                                 std::make_shared<RecordingSink>());
  client::SubscribeSpec spec;
  spec.topic = topicName("t");
  spec.subscription = "orders";
  spec.type = SubscriptionType::exclusive;
  std::shared_ptr<client::BackendConsumer> second;
  auto status = harness.trySubscribe(spec, std::make_shared<RecordingSink>(), second);
  EXPECT_EQ(status.code, errc::broker_error);
  EXPECT_NE(status.message.find("Subscription 'orders'"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("is of different type"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("it is Shared"), std::string::npos) << status.message;
  EXPECT_NE(status.message.find("asked for Exclusive"), std::string::npos) << status.message;
  EXPECT_EQ(second, nullptr);
}

TEST(EmbeddedSubscription, ExclusiveTakesOneConsumer) {
  Harness harness;
  auto first = harness.subscribe(topicName("t"), "solo", SubscriptionType::exclusive,
                                 std::make_shared<RecordingSink>());
  client::SubscribeSpec spec;
  spec.topic = topicName("t");
  spec.subscription = "solo";
  spec.type = SubscriptionType::exclusive;
  std::shared_ptr<client::BackendConsumer> second;
  auto status = harness.trySubscribe(spec, std::make_shared<RecordingSink>(), second);
  EXPECT_EQ(status.code, errc::broker_error);
  EXPECT_NE(status.message.find("'solo'"), std::string::npos) << status.message;
}

TEST(EmbeddedSubscription, TypeMayChangeOnceEveryConsumerLeft) {
  // Pulsar replaces the dispatcher of a subscription without consumers.
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto first =
      harness.subscribe(topic, "s", SubscriptionType::exclusive, std::make_shared<RecordingSink>());
  send(*producer, "kept");
  callStatus([&](auto done) { first->close(done); }).raiseIfFailed();
  auto sink = std::make_shared<RecordingSink>();
  auto shared = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  EXPECT_EQ(sink->payloads(), Strings{"kept"});
}

TEST(EmbeddedSubscription, ConsumerReceivesOnlyWhileItHasPermits) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink,
                                    InitialPosition::earliest, /*receiverQueueSize=*/2);
  for (int i = 0; i < 5; ++i) send(*producer, std::to_string(i));
  EXPECT_EQ(sink->payloads(), (Strings{"0", "1"}));
  consumer->flow(1);
  EXPECT_EQ(sink->payloads(), (Strings{"0", "1", "2"}));
  consumer->flow(5);
  EXPECT_EQ(sink->count(), 5u);
  send(*producer, "5");
  send(*producer, "6");
  send(*producer, "7");
  send(*producer, "8");
  EXPECT_EQ(sink->count(), 8u);  // 2 + 1 + 5 permits
  consumer->flow(1);
  EXPECT_EQ(sink->count(), 9u);
}

TEST(EmbeddedSubscription, ZeroQueueConsumerWaitsForFlow) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::exclusive, sink,
                                    InitialPosition::earliest, /*receiverQueueSize=*/0);
  send(*producer, "a");
  EXPECT_EQ(sink->count(), 0u);
  consumer->flow(1);
  EXPECT_EQ(sink->payloads(), Strings{"a"});
}

TEST(EmbeddedSubscription, EmptySubscriptionNameIsRefused) {
  Harness harness;
  client::SubscribeSpec spec;
  spec.topic = topicName("t");
  std::shared_ptr<client::BackendConsumer> consumer;
  auto status = harness.trySubscribe(spec, std::make_shared<RecordingSink>(), consumer);
  EXPECT_EQ(status.code, errc::invalid_argument);
  EXPECT_NE(status.message.find(topicName("t")), std::string::npos);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
