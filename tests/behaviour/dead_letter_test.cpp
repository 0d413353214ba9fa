// deadLetter, and what happens when routing or publishing fails: the original stays
// unacknowledged and comes back; nothing is lost (SPEC.md sections 1 and 5).
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class DeadLetter : public BehaviourTest {};

TEST_P(DeadLetter, ExplicitCallGoesStraightToTheDeadLetterTopic) {
  auto topic = uniqueTopic("explicit-dlq");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::defaultTable())));
  auto id = client().createProducer(topic).send("poison");
  auto message = receiveNow(consumer);
  consumer.deadLetter(message, "schema v3 is not supported");

  auto deadLetters = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(deadLetters.size(), 1u);
  EXPECT_EQ(deadLetters[0].data(), "poison");
  EXPECT_EQ(deadLetters[0].property("DEAD_LETTER_CAUSE"), "explicit");
  EXPECT_EQ(deadLetters[0].property("RECONSUME_REASON"), "schema v3 is not supported");
  EXPECT_EQ(deadLetters[0].property("RECONSUMETIMES"), "0") << "a dead-letter call is no retry";
  EXPECT_EQ(deadLetters[0].property("ORIGIN_MESSAGE_ID"), id.toString());
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
  expectNothing(consumer);
}

TEST_P(DeadLetter, LevelOutsideTheTableIsAnErrorAndChangesNothing) {
  auto topic = uniqueTopic("bad-level");
  auto consumer = client().subscribe(confirmedAcks(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms 400ms")))));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  for (int level : {0, 3, -1}) {
    try {
      consumer.reconsumeLater(message, level);
      FAIL() << "level " << level << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(std::to_string(level)), std::string::npos) << e.what();
    }
  }
  try {
    consumer.reconsumeLater(message, std::chrono::milliseconds(-5));
    FAIL() << "a negative delay was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("-5"), std::string::npos) << e.what();
  }
  // Nothing was published, the original is still ours to handle.
  EXPECT_TRUE(readAll(*consumer.retryTopic()).empty());
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  consumer.acknowledge(message);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

TEST_P(DeadLetter, FailedPublishLeavesTheOriginalUnacknowledgedAndRedelivers) {
  auto topic = uniqueTopic("refused");
  auto options = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms")));
  options.negativeAckRedeliveryDelay = 500ms;
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  // The broker refuses every publish to a terminated topic.
  admin().terminateTopic(*consumer.retryTopic());
  auto due = now() + 500ms;
  try {
    consumer.reconsumeLater(message);
    FAIL() << "the publish to a terminated retry topic succeeded";
  } catch (const Error& e) {
    EXPECT_NE(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(*consumer.retryTopic()), std::string::npos) << e.what();
  }
  // Not acknowledged: it comes back after the negative-ack delay, counted as a redelivery.
  auto again = receiveAt(consumer, due);
  EXPECT_EQ(again.id(), message.id());
  EXPECT_EQ(again.redeliveryCount(), 1);
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
}

TEST_P(DeadLetter, MessageTooLargeAfterAddingPropertiesIsAnErrorAndIsKept) {
  auto topic = uniqueTopic("large");
  auto options = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms")));
  options.negativeAckRedeliveryDelay = 500ms;
  auto consumer = client().subscribe(options);
  // Just under the broker's limit as sent; the retry's properties push it over. (The embedded
  // brokers of these tests run with a 64 KiB limit; Pulsar's default is 5 MiB.)
  const std::size_t limit = embedded() ? 64 * 1024 : 5 * 1024 * 1024;
  OutgoingMessage big;
  big.payload.assign(limit - 2048, 'x');
  client().createProducer(topic).send(big);
  auto message = receiveNow(consumer);
  ReconsumeOptions retry;
  retry.reason = std::string(1000, 'r');
  retry.properties = {{"padding", std::string(1500, 'p')}};
  try {
    consumer.reconsumeLater(message, retry);
    FAIL() << "an oversized retry was published";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
  }
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  EXPECT_TRUE(readAll(*consumer.retryTopic()).empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, DeadLetter, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
