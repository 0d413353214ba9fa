// Grouped acknowledgements (ConsumerOptions::acknowledgmentGroupTime, acknowledgmentReceipts;
// SPEC.md section 12) on both backends: what the broker knows when acknowledge returns, and that
// held acknowledgements go out before a close or a redelivery of everything.
#include <boost/asio/use_future.hpp>

#include "../integration/backlog_wait.hpp"
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class AckGrouping : public BehaviourTest {
 protected:
  ConsumerOptions options(const std::string& topic, std::chrono::milliseconds groupTime,
                          bool receipts = false) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "sub";
    options.subscriptionType = SubscriptionType::shared;
    options.initialPosition = InitialPosition::earliest;
    options.acknowledgmentGroupTime = groupTime;
    options.acknowledgmentReceipts = receipts;
    return options;
  }
  void publish(const std::string& topic, int count) {
    auto producer = client().createProducer(topic);
    for (int i = 0; i < count; ++i) producer.send("m" + std::to_string(i));
  }
};

// Without receipts acknowledge returns at once, while the broker does not know it yet (a group
// time far longer than the test); closing sends what is held before the consumer goes.
TEST_P(AckGrouping, HeldAcknowledgementsReachTheBrokerWhenTheConsumerCloses) {
  auto topic = uniqueTopic("ack-held");
  publish(topic, 3);
  auto consumer = client().subscribe(options(topic, std::chrono::minutes(10)));
  for (int i = 0; i < 3; ++i) consumer.acknowledge(receiveNow(consumer));
  EXPECT_EQ(admin().backlog(topic, "sub"), 3) << "held, not yet sent";
  consumer.close();
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
  auto again = client().subscribe(options(topic, std::chrono::minutes(10)));
  expectNothing(again);
}

// With receipts acknowledge returns once the broker confirmed: the group went out.
TEST_P(AckGrouping, WithReceiptsAcknowledgeReturnsOnceTheBrokerHasIt) {
  auto topic = uniqueTopic("ack-receipts");
  publish(topic, 2);
  auto consumer = client().subscribe(options(topic, std::chrono::milliseconds(50), true));
  consumer.acknowledge(receiveNow(consumer));
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  consumer.acknowledge(receiveNow(consumer));
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// The defaults group as the Java client's do (100 ms, no receipts): held acknowledgements go out
// on their own once the group time has passed — real time, also under a ManualClock — with the
// consumer still open.
TEST_P(AckGrouping, ByDefaultHeldAcknowledgementsGoOutOnceTheGroupTimeHasPassed) {
  auto topic = uniqueTopic("ack-default");
  publish(topic, 3);
  auto consumer = client().subscribe(plainOptions(topic));
  for (int i = 0; i < 3; ++i) consumer.acknowledge(receiveNow(consumer));
  EXPECT_EQ(integration::awaitBacklog(admin(), topic, "sub", 0), 0);
  expectNothing(consumer);
}

// Without grouping every acknowledgement is confirmed before acknowledge returns.
TEST_P(AckGrouping, WithoutAGroupTimeEachAcknowledgementIsConfirmed) {
  auto topic = uniqueTopic("ack-ungrouped");
  publish(topic, 1);
  auto consumer = client().subscribe(options(topic, std::chrono::milliseconds(0)));
  consumer.acknowledge(receiveNow(consumer));
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// "Redeliver everything unacknowledged" does not bring back a message whose acknowledgement is
// held: it is sent first.
TEST_P(AckGrouping, RedeliveringEverythingKeepsHeldAcknowledgements) {
  auto topic = uniqueTopic("ack-redeliver");
  publish(topic, 2);
  auto consumer = client().subscribe(options(topic, std::chrono::minutes(10)));
  auto first = receiveNow(consumer);
  auto second = receiveNow(consumer);
  consumer.acknowledge(first);
  consumer.redeliverUnacknowledgedMessages();
  auto back = receiveNow(consumer);
  EXPECT_EQ(back.id(), second.id());
  expectNothing(consumer);
  consumer.acknowledge(back);
  consumer.close();
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// An asynchronous acknowledgement waiting in the group for its receipt, whose consumer the
// application drops without closing it: its handler still runs, once, saying the consumer is gone
// (not a handler that never runs, or a future whose promise broke).
TEST_P(AckGrouping, AHeldAcknowledgementOfAConsumerDroppedWithoutCloseIsAnswered) {
  auto topic = uniqueTopic("ack-dropped");
  publish(topic, 1);
  std::future<void> acknowledged;
  {
    auto consumer = client().subscribe(options(topic, std::chrono::minutes(10), true));
    auto message = receiveNow(consumer);
    acknowledged = consumer.asyncAcknowledge(message, boost::asio::use_future);
  }
  ASSERT_EQ(acknowledged.wait_for(10s), std::future_status::ready) << "the handler never ran";
  try {
    acknowledged.get();
    FAIL() << "acknowledged, though the group was never sent";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  } catch (const std::exception& e) {
    FAIL() << "not an error of the library: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AckGrouping, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
