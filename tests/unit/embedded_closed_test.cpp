// Operations on closed producers, consumers and backends.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

TEST(EmbeddedClosed, ClosedProducerRefusesSends) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  callStatus([&](auto done) { producer->close(done); }).raiseIfFailed();
  callStatus([&](auto done) { producer->close(done); }).raiseIfFailed();  // closing again is fine
  MessageId id;
  auto status = trySend(*producer, OutgoingMessage{}, id);
  EXPECT_EQ(status.code, errc::closed);
  EXPECT_NE(status.message.find(topicName("t")), std::string::npos);
}

TEST(EmbeddedClosed, ClosedConsumerRefusesCallsAndReceivesNothingMore) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared, sink);
  send(*producer, "before");
  callStatus([&](auto done) { consumer->close(done); }).raiseIfFailed();
  send(*producer, "after");
  consumer->flow(10);
  consumer->redeliverAll();
  consumer->redeliver({MessageId()});
  EXPECT_EQ(sink->count(), 1u);
  EXPECT_EQ(callStatus([&](auto done) { consumer->acknowledge(*sink->messages()[0], done); }).code,
            errc::closed);
  EXPECT_EQ(callStatus([&](auto done) { consumer->seek(MessageId::earliest(), done); }).code,
            errc::closed);
  MessageId last;
  EXPECT_EQ(callStatus([&](auto done) { consumer->lastMessageId(done); }, last).code, errc::closed);
  EXPECT_EQ(harness.backlog(topicName("t"), "s"), 2);
}

TEST(EmbeddedClosed, ClosingTheBackendClosesItsProducersAndConsumers) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  auto consumer = harness.subscribe(topicName("t"), "s", SubscriptionType::shared,
                                    std::make_shared<RecordingSink>());
  callStatus([&](auto done) { harness.backend->close(done); }).raiseIfFailed();

  MessageId id;
  EXPECT_EQ(trySend(*producer, OutgoingMessage{}, id).code, errc::closed);
  MessageData data;
  EXPECT_EQ(callStatus([&](auto done) { consumer->acknowledge(data, done); }).code, errc::closed);
  EXPECT_EQ(thrownBy([&] { harness.producer(topicName("t")); }).code(), errc::closed);
  std::shared_ptr<client::BackendConsumer> another;
  client::SubscribeSpec spec;
  spec.topic = topicName("t");
  spec.subscription = "s";
  EXPECT_EQ(harness.trySubscribe(spec, std::make_shared<RecordingSink>(), another).code,
            errc::closed);
  int partitions = 0;
  EXPECT_EQ(
      callStatus([&](auto done) { harness.backend->partitions(topicName("t"), done); }, partitions)
          .code,
      errc::closed);
  // Nothing is attached any more.
  EXPECT_NO_THROW(harness.admin->deleteTopic(topicName("t")));
}

TEST(EmbeddedClosed, DroppingTheBackendDetachesWhatItOpened) {
  Harness harness;
  auto topic = topicName("t");
  {
    Harness other(uniqueBrokerName(), "", harness.clock);
    auto consumer =
        other.subscribe(topic, "s", SubscriptionType::exclusive, std::make_shared<RecordingSink>());
    other.backend.reset();  // the consumer handle lives on, the Backend is gone
    auto again = harness.subscribe(topic, "s", SubscriptionType::exclusive,
                                   std::make_shared<RecordingSink>());
    EXPECT_NE(again, nullptr);
  }
}

// A sink that drops the last reference to something of the broker's when its first message
// arrives, as the layer above may when its own consumer dies at that moment.
class DroppingSink final : public client::MessageSink {
 public:
  void onMessage(std::shared_ptr<MessageData>) override {
    ++messages;
    consumer.reset();
    producer.reset();
    backend.reset();
  }
  void onReset(const std::string&) override {}
  void onEnded(const std::string&, const Status&) override {}

  int messages = 0;
  std::shared_ptr<client::BackendConsumer> consumer;
  std::shared_ptr<client::BackendProducer> producer;
  std::shared_ptr<client::Backend> backend;
};

TEST(EmbeddedClosed, DroppingTheLastConsumerReferenceInsideItsSinkDetachesIt) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<DroppingSink>();
  sink->consumer = harness.subscribe(topic, "s", SubscriptionType::exclusive, sink);
  send(*producer, "m");
  EXPECT_EQ(sink->messages, 1);
  EXPECT_EQ(sink->consumer, nullptr);
  // Detached: the Exclusive subscription takes a new consumer, which gets the unacknowledged one.
  auto next = std::make_shared<RecordingSink>();
  auto again = harness.subscribe(topic, "s", SubscriptionType::exclusive, next);
  EXPECT_EQ(next->payloads(), std::vector<std::string>{"m"});
}

TEST(EmbeddedClosed, DroppingAProducerOfTheSameTopicInsideASinkDetachesIt) {
  Harness harness;
  auto topic = topicName("t");
  auto sink = std::make_shared<DroppingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  ProducerOptions options;
  options.producerName = "dropped";
  sink->producer = harness.producer(topic, options);
  send(*harness.producer(topic), "m");
  EXPECT_EQ(sink->producer, nullptr);
  EXPECT_NO_THROW(harness.producer(topic, options));  // the name is free again
}

TEST(EmbeddedClosed, DroppingTheLastBackendInsideASinkClosesEverything) {
  auto name = uniqueBrokerName();
  auto clock = std::make_shared<ManualClock>();
  auto sink = std::make_shared<DroppingSink>();
  std::shared_ptr<client::BackendProducer> producer;
  {
    Harness only(name, "", clock);
    auto consumer = only.subscribe(topicName("t"), "s", SubscriptionType::shared, sink);
    producer = only.producer(topicName("t"));
    sink->backend = std::move(only.backend);  // the sink holds the last references
    sink->consumer = std::move(consumer);
  }
  send(*producer, "m");  // the broker goes away inside the sink
  EXPECT_EQ(sink->messages, 1);
  MessageId id;
  EXPECT_EQ(trySend(*producer, OutgoingMessage{}, id).code, errc::closed);
  auto admin = connectEmbeddedAdmin(ServiceUrl::parse("embedded://" + name));
  EXPECT_FALSE(admin->topicExists(topicName("t")));  // a fresh broker
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
