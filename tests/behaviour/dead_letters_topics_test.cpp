// DeadLetterQueue on unusual topics, on every backend: dead letters written by the Java client, a
// partitioned dead-letter topic, an unknown topic, a topic that is no dead-letter topic, bad input.
#include <set>

#include "dead_letters_fixture.hpp"

namespace reconsume::behaviour {
namespace {

TEST_P(DeadLetters, DeadLettersWrittenByTheJavaClientListAsCauseUnknown) {
  // The Java client writes these properties (tests/interop/README.md) and creates no subscription.
  auto origin = uniqueTopic("java-orders");
  auto dlqTopic = origin + "-billing-DLQ";
  auto producer = client().createProducer(dlqTopic);
  OutgoingMessage javaDeadLetter;
  javaDeadLetter.payload = "from java";
  javaDeadLetter.key = "k1";
  javaDeadLetter.properties = {
      {"RECONSUMETIMES", "3"},         {"DELAY_TIME", "100"},
      {"REAL_TOPIC", origin},          {"REAL_SUBSCRIPTION", "billing"},
      {"ORIGIN_MESSAGE_ID", "5:0:-1"}, {"ORIGIN_MESSAGE_IDY_TIME", "5:0:-1"}};
  producer.send(javaDeadLetter);
  DeadLetterQueue dlq(client(), admin(), dlqTopic);
  auto listed = dlq.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].cause, "unknown");
  EXPECT_EQ(listed[0].reason, "");
  EXPECT_EQ(listed[0].originTopic, origin);
  EXPECT_EQ(listed[0].originMessageId, "5:0:-1");
  EXPECT_EQ(listed[0].reconsumeTimes, 3);
  DeadLetterFilter unknown;
  unknown.cause = "unknown";
  EXPECT_EQ(dlq.list(unknown).size(), 1u);
  auto warnings = dlq.warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no subscription 'reconsume-dlq'"), std::string::npos) << warnings[0];

  // Replay works too; the consumer creates the subscription at the earliest message.
  ConsumerOptions options;
  options.topics = {origin};
  options.subscription = "billing";
  options.initialPosition = InitialPosition::earliest;
  auto service = client().subscribe(options);
  EXPECT_EQ(dlq.replay().replayed, 1u);
  auto replayed = receiveNow(service);
  EXPECT_EQ(replayed.data(), "from java");
  EXPECT_EQ(replayed.property("REAL_SUBSCRIPTION"), "billing");
  EXPECT_FALSE(replayed.property("RECONSUMETIMES"));
  EXPECT_FALSE(replayed.property("DELAY_TIME"));
  EXPECT_TRUE(dlq.list().empty());
}

TEST_P(DeadLetters, APartitionedDeadLetterTopicIsReadPartitionByPartition) {
  auto dlqTopic = uniqueTopic("partitioned") + "-DLQ";
  admin().createPartitionedTopic(dlqTopic, 2);
  auto producer = client().createProducer(dlqTopic);
  ConsumerOptions subscription;
  subscription.topics = {dlqTopic};
  subscription.subscription = "reconsume-dlq";
  subscription.initialPosition = InitialPosition::earliest;
  client().subscribe(subscription).close();  // the subscription, on both partitions
  std::set<std::string> sent;
  for (int i = 0; i < 6; ++i) {
    OutgoingMessage message;
    message.payload = "m" + std::to_string(i);
    message.key = "key-" + std::to_string(i);
    message.properties = {{"DEAD_LETTER_CAUSE", "explicit"}, {"RECONSUME_REASON", "r"}};
    producer.send(message);
    sent.insert(message.payload);
  }
  DeadLetterQueue dlq(client(), admin(), dlqTopic);
  auto listed = dlq.list();
  std::set<std::string> seen;
  std::set<int> partitions;
  for (const auto& d : listed) {
    seen.insert(std::string(d.message.data()));
    partitions.insert(d.id().partition());
  }
  EXPECT_EQ(seen, sent);
  PurgeOptions purge;
  purge.filter.ids = {listed.front().id(), listed.back().id()};
  EXPECT_EQ(dlq.purge(purge).purged, 2u);
  EXPECT_EQ(dlq.list().size(), 4u);
  EXPECT_EQ(admin().backlog(dlqTopic, "reconsume-dlq"), 4);
}

TEST_P(DeadLetters, BadInputIsNamedAndChangesNothing) {
  makeService();
  deadLetter("a", "bad");
  auto dlq = queue();
  auto expectInvalid = [&](auto call, const std::string& named) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected an error naming " << named;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  DeadLetterFilter badRegex;
  badRegex.reason = "time(out";
  expectInvalid([&] { dlq.list(badRegex); }, "time(out");
  ReplayOptions replay;
  replay.filter = badRegex;
  expectInvalid([&] { dlq.replay(replay); }, "time(out");
  PurgeOptions purge;
  purge.filter = badRegex;
  expectInvalid([&] { dlq.purge(purge); }, "time(out");
  DeadLetterFilter badCause;
  badCause.cause = "poison";
  expectInvalid([&] { dlq.stats(badCause); }, "poison");
  for (double rate : {0.0, -3.0}) {
    ReplayOptions paced;
    paced.ratePerSecond = rate;
    expectInvalid([&] { dlq.replay(paced); }, "rate");
  }
  ReplayOptions zeroLimit;
  zeroLimit.limit = 0;
  expectInvalid([&] { dlq.replay(zeroLimit); }, "limit 0");
  ReplayOptions intoItself;
  intoItself.to = deadLetterTopic();
  expectInvalid([&] { dlq.replay(intoItself); }, deadLetterTopic());
  EXPECT_EQ(dlqBacklog(), 1);
  EXPECT_EQ(dlq.list().size(), 1u);
  expectNothing(consumer_);

  try {
    dlq.show(MessageId(123456, 7, -1));
    ADD_FAILURE() << "an unknown id was shown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_NE(std::string(e.what()).find("123456:7:-1"), std::string::npos) << e.what();
  }
}

TEST_P(DeadLetters, AnUnknownTopicIsNotFound) {
  auto missing = uniqueTopic("nothing-here") + "-DLQ";
  try {
    DeadLetterQueue dlq(client(), admin(), missing);
    ADD_FAILURE() << "opened " << missing;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_FALSE(admin().topicExists(missing)) << "looking must not create it";
}

TEST_P(DeadLetters, ATopicThatIsNoDeadLetterTopicIsReadWithWarnings) {
  auto plain = uniqueTopic("just-orders");
  ConsumerOptions options;
  options.topics = {plain};
  options.subscription = "reconsume-dlq";
  client().subscribe(options).close();
  client().createProducer(plain).send("not a dead letter");
  DeadLetterQueue dlq(client(), admin(), plain);
  auto listed = dlq.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].hasRetryProperties);
  EXPECT_EQ(listed[0].cause, "unknown");
  auto warnings = dlq.warnings();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("does not end in -DLQ"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("carries a retry property"), std::string::npos) << warnings[1];
}

}  // namespace
}  // namespace reconsume::behaviour
