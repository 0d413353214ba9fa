// Redelivery without a retry topic: negative acknowledgements (fixed delay or backoff) and ack
// timeouts (with a backoff), PIP-106 and PIP-130.
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Redelivery : public BehaviourTest {
 protected:
  ConsumerOptions plain(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "sub";
    options.initialPosition = InitialPosition::earliest;
    return options;
  }
};

TEST_P(Redelivery, NegativeAckComesBackAfterTheFixedDelay) {
  auto topic = uniqueTopic("nack-fixed");
  auto options = plain(topic);
  options.negativeAckRedeliveryDelay = 400ms;
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);
  EXPECT_EQ(message.redeliveryCount(), 0);

  for (int round = 1; round <= 2; ++round) {
    auto due = now() + 400ms;
    consumer.negativeAcknowledge(message);
    message = receiveAt(consumer, due);
    EXPECT_EQ(message.redeliveryCount(), round);
  }
  consumer.acknowledge(message);
  expectNothing(consumer);
}

TEST_P(Redelivery, NegativeAckFollowsTheBackoff) {
  auto topic = uniqueTopic("nack-backoff");
  auto options = plain(topic);
  MultiplierRedeliveryBackoff::Options backoff;
  backoff.min = 200ms;
  backoff.max = 800ms;
  backoff.multiplier = 2;
  options.negativeAckRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>(backoff);
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  // next(c): 200, 400, 800, 800 ms for redelivery counts 0, 1, 2, 3.
  for (auto expected : {200ms, 400ms, 800ms, 800ms}) {
    auto due = now() + expected;
    auto count = message.redeliveryCount();
    consumer.negativeAcknowledge(message);
    message = receiveAt(consumer, due);
    EXPECT_EQ(message.redeliveryCount(), count + 1);
  }
  consumer.acknowledge(message);
}

TEST_P(Redelivery, AckTimeoutAddsTheBackoff) {
  auto topic = uniqueTopic("ack-timeout");
  auto options = plain(topic);
  options.ackTimeout = 1000ms;
  MultiplierRedeliveryBackoff::Options backoff;
  backoff.min = 100ms;
  backoff.max = 400ms;
  options.ackTimeoutRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>(backoff);
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  // ackTimeout + next(redeliveryCount): 1100, 1200, 1400 ms.
  for (auto expected : {1100ms, 1200ms, 1400ms}) {
    auto due = now() + expected;
    auto count = message.redeliveryCount();
    message = receiveAt(consumer, due);
    EXPECT_EQ(message.redeliveryCount(), count + 1);
  }
  consumer.acknowledge(message);
  // Acknowledged: the timer is gone.
  letPass(5s);
  expectNothing(consumer, 2s);
}

TEST_P(Redelivery, DelayAndBackoffTogetherAreRefused) {
  auto options = plain(uniqueTopic("conflict"));
  options.negativeAckRedeliveryDelay = 5s;
  options.negativeAckRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>();
  try {
    client().subscribe(options);
    FAIL() << "a negative-ack delay and a backoff together were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("negativeAckRedeliveryDelay"), std::string::npos)
        << e.what();
  }
}

TEST_P(Redelivery, ClosingAConsumerRedeliversItsUnacknowledgedMessagesAtOnce) {
  auto topic = uniqueTopic("crash");
  auto options = plain(topic);
  options.negativeAckRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>();
  auto first = client().subscribe(options);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(first);
  first.close();

  auto second = client().subscribe(options);
  auto again = receiveNow(second);
  EXPECT_EQ(again.id(), message.id());
  second.acknowledge(again);
}

INSTANTIATE_TEST_SUITE_P(Backends, Redelivery, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
