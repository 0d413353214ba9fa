// Delayed delivery on the broker's clock: held on Shared and Key_Shared until due, ignored on
// Exclusive and Failover, one timer per subscription.
#include <gtest/gtest.h>

#include <atomic>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

OutgoingMessage delayedBy(std::chrono::milliseconds delay, const std::string& payload) {
  OutgoingMessage message;
  message.payload = payload;
  message.deliverAfter = delay;
  return message;
}

TEST(EmbeddedDelayed, SharedHoldsTheMessageUntilTheClockReachesDeliverAt) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  OutgoingMessage message;
  message.payload = "two hours later";
  message.deliverAt = harness.clock->now() + 2h;
  send(*producer, message);

  harness.clock->advance(2h - 1ms);
  EXPECT_EQ(sink->count(), 0u);
  harness.clock->advance(1ms);
  EXPECT_EQ(sink->payloads(), Strings{"two hours later"});
}

TEST(EmbeddedDelayed, DeliverAfterCountsFromThePublishTime) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  harness.clock->advance(10s);
  send(*producer, delayedBy(30s, "m"));
  harness.clock->advance(29s);
  EXPECT_EQ(sink->count(), 0u);
  harness.clock->advance(1s);
  EXPECT_EQ(sink->count(), 1u);
}

TEST(EmbeddedDelayed, KeySharedHoldsToo) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::keyShared, sink);
  auto message = delayedBy(1min, "m");
  message.key = "k";
  send(*producer, message);
  EXPECT_EQ(sink->count(), 0u);
  harness.clock->advance(1min);
  EXPECT_EQ(sink->count(), 1u);
}

TEST(EmbeddedDelayed, ExclusiveAndFailoverIgnoreTheDelay) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto exclusive = std::make_shared<RecordingSink>();
  auto failover = std::make_shared<RecordingSink>();
  auto shared = std::make_shared<RecordingSink>();
  auto c1 = harness.subscribe(topic, "e", SubscriptionType::exclusive, exclusive);
  auto c2 = harness.subscribe(topic, "f", SubscriptionType::failover, failover);
  auto c3 = harness.subscribe(topic, "s", SubscriptionType::shared, shared);
  send(*producer, delayedBy(1h, "m"));
  EXPECT_EQ(exclusive->count(), 1u);
  EXPECT_EQ(failover->count(), 1u);
  EXPECT_EQ(shared->count(), 0u);
}

TEST(EmbeddedDelayed, DueAtOrBeforeNowGoesAtOnce) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  OutgoingMessage now;
  now.payload = "now";
  now.deliverAt = harness.clock->now();
  OutgoingMessage past;
  past.payload = "past";
  past.deliverAt = harness.clock->now() - 1h;
  send(*producer, now);
  send(*producer, past);
  send(*producer, delayedBy(0ms, "zero"));
  EXPECT_EQ(sink->payloads(), (Strings{"now", "past", "zero"}));
  EXPECT_FALSE(harness.clock->nextTimer());
}

TEST(EmbeddedDelayed, LaterMessagesOvertakeHeldOnes) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  send(*producer, delayedBy(1min, "held"));
  send(*producer, "plain");
  EXPECT_EQ(sink->payloads(), Strings{"plain"});
  harness.clock->advance(1min);
  EXPECT_EQ(sink->payloads(), (Strings{"plain", "held"}));
}

TEST(EmbeddedDelayed, OneAdvanceReleasesMessagesInOrderOfDueTime) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  send(*producer, delayedBy(3s, "third"));
  send(*producer, delayedBy(1s, "first"));
  send(*producer, delayedBy(2s, "second"));
  harness.clock->advance(1h);
  EXPECT_EQ(sink->payloads(), (Strings{"first", "second", "third"}));
}

// A clock that counts the timers armed on it.
class CountingClock final : public Clock {
 public:
  time_point now() const override { return inner.now(); }
  TimerId schedule(time_point at, std::function<void()> fn) override {
    ++scheduled;
    return inner.schedule(at, std::move(fn));
  }
  bool cancel(TimerId id) override { return inner.cancel(id); }

  ManualClock inner;
  std::atomic<int> scheduled{0};
};

TEST(EmbeddedDelayed, OneTimerPerSubscriptionNotOnePerMessage) {
  auto clock = std::make_shared<CountingClock>();
  auto connection = connectEmbedded(ServiceUrl::parse("embedded://" + uniqueBrokerName()), clock);
  ProducerOptions options;
  options.topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer;
  callStatus([&](auto done) { connection.backend->createProducer(options, done); }, producer)
      .raiseIfFailed();
  auto sink = std::make_shared<RecordingSink>();
  client::SubscribeSpec spec;
  spec.topic = options.topic;
  spec.subscription = "s";
  std::shared_ptr<client::BackendConsumer> consumer;
  callStatus([&](auto done) { connection.backend->subscribe(spec, sink, done); }, consumer)
      .raiseIfFailed();

  for (int i = 1; i <= 50; ++i) send(*producer, delayedBy(std::chrono::seconds(i), "m"));
  EXPECT_EQ(clock->scheduled, 1);
  send(*producer, delayedBy(500ms, "earlier"));  // due before the armed timer: re-armed
  EXPECT_EQ(clock->scheduled, 2);
  clock->inner.advance(1min);
  EXPECT_EQ(sink->count(), 51u);
  EXPECT_FALSE(clock->inner.nextTimer());
}

TEST(EmbeddedDelayed, DueMessageWaitsForPermits) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink,
                                    InitialPosition::earliest, /*receiverQueueSize=*/0);
  send(*producer, delayedBy(1s, "m"));
  harness.clock->advance(1s);
  EXPECT_EQ(sink->count(), 0u);
  consumer->flow(1);
  EXPECT_EQ(sink->payloads(), Strings{"m"});
}

TEST(EmbeddedDelayed, HeldMessagesStayHeldAcrossConsumersAndCountInTheBacklog) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto first =
      harness.subscribe(topic, "s", SubscriptionType::shared, std::make_shared<RecordingSink>());
  send(*producer, delayedBy(1h, "m"));
  EXPECT_EQ(harness.backlog(topic, "s"), 1);
  callStatus([&](auto done) { first->close(done); }).raiseIfFailed();
  auto sink = std::make_shared<RecordingSink>();
  auto second = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  EXPECT_EQ(sink->count(), 0u);
  harness.clock->advance(1h);
  EXPECT_EQ(sink->payloads(), Strings{"m"});
}

TEST(EmbeddedDelayed, AcknowledgedHeldMessageIsNotDelivered) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
  auto id = send(*producer, delayedBy(1h, "m"));
  MessageData data;
  data.id = id;
  ack(*consumer, data);  // Pulsar acknowledges by position, received or not
  harness.clock->advance(2h);
  EXPECT_EQ(sink->count(), 0u);
  EXPECT_EQ(harness.backlog(topic, "s"), 0);
}

TEST(EmbeddedDelayed, SystemClockReleasesOnItsTimerThread) {
  auto url = ServiceUrl::parse("embedded://" + uniqueBrokerName());
  auto connection = connectEmbedded(url, std::make_shared<SystemClock>());
  ProducerOptions options;
  options.topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer;
  callStatus([&](auto done) { connection.backend->createProducer(options, done); }, producer)
      .raiseIfFailed();
  auto sink = std::make_shared<RecordingSink>();
  client::SubscribeSpec spec;
  spec.topic = options.topic;
  spec.subscription = "s";
  std::shared_ptr<client::BackendConsumer> consumer;
  callStatus([&](auto done) { connection.backend->subscribe(spec, sink, done); }, consumer)
      .raiseIfFailed();
  auto sentAt = std::chrono::system_clock::now();
  send(*producer, delayedBy(50ms, "real time"));
  auto message = sink->pop(10s);
  ASSERT_NE(message, nullptr);
  EXPECT_GE(std::chrono::system_clock::now() - sentAt, 50ms);
  EXPECT_EQ(message->payload, "real time");
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
