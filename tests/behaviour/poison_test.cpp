// Poison messages (ConsumerOptions::maxRedeliverCount, SPEC.md section 1): a message the broker
// delivered more than N times goes to the dead-letter topic with DEAD_LETTER_CAUSE=redelivered,
// with or without a retry policy, as the Java client's DeadLetterPolicy does.
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Poison : public BehaviourTest {
 protected:
  ConsumerOptions poisonOptions(const std::string& topic, int maxRedeliverCount) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "sub";
    options.initialPosition = InitialPosition::earliest;
    options.negativeAckRedeliveryDelay = 200ms;
    options.maxRedeliverCount = maxRedeliverCount;
    return options;
  }
  // A consumer of the dead-letter topic, from its first message.
  Consumer watchDeadLetters(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic + "-sub-DLQ"};
    options.subscription = "watch";
    options.initialPosition = InitialPosition::earliest;
    return client().subscribe(options);
  }
};

TEST_P(Poison, AMessageNegativelyAcknowledgedTooOftenIsDeadLettered) {
  auto topic = uniqueTopic("poison-nack");
  auto consumer = client().subscribe(poisonOptions(topic, 2));
  auto deadLetters = watchDeadLetters(topic);
  client().createProducer(topic).send("poison");

  auto message = receiveNow(consumer);
  for (int count = 0; count <= 2; ++count) {
    ASSERT_EQ(message.redeliveryCount(), count);
    auto due = now() + 200ms;
    consumer.negativeAcknowledge(message);
    if (count < 2) message = receiveAt(consumer, due);
  }
  // Delivered three times, and the third negative acknowledgement sends it on instead of back.
  letPass(200ms);
  auto dead = receiveNow(deadLetters);
  EXPECT_EQ(dead.data(), "poison");
  EXPECT_EQ(dead.property("DEAD_LETTER_CAUSE"), "redelivered");
  EXPECT_EQ(dead.property("REAL_TOPIC"), topic);
  EXPECT_EQ(dead.property("ORIGIN_MESSAGE_ID"), message.id().toString());
  EXPECT_EQ(dead.property("RECONSUME_REASON"), "delivered 3 times (maxRedeliverCount 2)");
  expectNothing(consumer);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0) << "the original is acknowledged";
}

TEST_P(Poison, AMessageArrivingOverTheLimitIsNotHandedToTheApplication) {
  auto topic = uniqueTopic("poison-arrival");
  auto deadLetters = watchDeadLetters(topic);
  client().createProducer(topic).send("over the limit");
  // Another consumer of the subscription, without the limit, gives it back twice, then goes away
  // while the limited one is there (a subscription left without consumers forgets the counts).
  auto careless = client().subscribe(poisonOptions(topic, 0));
  auto message = receiveNow(careless);
  for (int count = 1; count <= 2; ++count) {
    auto due = now() + 200ms;
    careless.negativeAcknowledge(message);
    message = receiveAt(careless, due);
    ASSERT_EQ(message.redeliveryCount(), count);
  }
  auto limited = client().subscribe(poisonOptions(topic, 1));
  careless.close();
  auto dead = receiveNow(deadLetters);
  EXPECT_EQ(dead.data(), "over the limit");
  EXPECT_EQ(dead.property("DEAD_LETTER_CAUSE"), "redelivered");
  EXPECT_EQ(dead.property("RECONSUME_REASON"), "delivered 3 times (maxRedeliverCount 1)");
  expectNothing(limited);
}

TEST_P(Poison, WorksBesideARetryPolicyWhoseCountIsKept) {
  auto topic = uniqueTopic("poison-retry");
  auto options = poisonOptions(topic, 1);
  options.retry = RetryPolicy::levels(DelayLevels::parse("100ms"), 5);
  auto consumer = client().subscribe(options);
  EXPECT_EQ(consumer.deadLetterTopic(), topic + "-sub-DLQ");
  auto deadLetters = watchDeadLetters(topic);
  client().createProducer(topic).send("both");
  auto message = receiveNow(consumer);
  auto due = now() + 100ms;
  consumer.reconsumeLater(message);
  auto retried = receiveAt(consumer, due);
  EXPECT_EQ(retried.property("RECONSUMETIMES"), "1");
  for (int count = 0; count <= 1; ++count) {
    auto next = now() + 200ms;
    consumer.negativeAcknowledge(retried);
    if (count < 1) retried = receiveAt(consumer, next);
  }
  letPass(200ms);
  auto dead = receiveNow(deadLetters);
  EXPECT_EQ(dead.property("DEAD_LETTER_CAUSE"), "redelivered");
  EXPECT_EQ(dead.property("RECONSUMETIMES"), "1") << "not a retry: the count stays";
}

TEST_P(Poison, ANegativeLimitIsRefusedNamingIt) {
  auto options = poisonOptions(uniqueTopic("poison-bad"), -1);
  try {
    client().subscribe(options);
    FAIL() << "maxRedeliverCount -1 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("maxRedeliverCount -1"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Poison, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
