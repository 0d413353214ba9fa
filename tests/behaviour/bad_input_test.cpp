// SPEC.md section 5, for what a client is handed: each bad value is an invalid-argument error
// naming it, and nothing is created.
#include <boost/asio/use_future.hpp>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class BadInput : public BehaviourTest {};

void expectInvalid(const std::function<void()>& call, const std::string& named) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected an error naming '" << named << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find(named), std::string::npos)
        << "'" << e.what() << "' does not name '" << named << "'";
  }
}

TEST_P(BadInput, ConsumerOptionsNameTheOffendingValue) {
  auto topic = uniqueTopic("bad-options");
  ConsumerOptions noSubscription;
  noSubscription.topics = {topic};
  expectInvalid([&] { client().subscribe(noSubscription); }, "subscription");

  ConsumerOptions noTopics;
  noTopics.subscription = "sub";
  expectInvalid([&] { client().subscribe(noTopics); }, "topics");

  ConsumerOptions badTopic;
  badTopic.topics = {"a/b/c/d"};
  badTopic.subscription = "sub";
  expectInvalid([&] { client().subscribe(badTopic); }, "a/b/c/d");

  ConsumerOptions badQueue;
  badQueue.topics = {topic};
  badQueue.subscription = "sub";
  badQueue.receiverQueueSize = 0;
  expectInvalid([&] { client().subscribe(badQueue); }, "receiverQueueSize");

  // Pulsar refuses a partitioned topic named like a partition; embedded said so differently.
  expectInvalid([&] { admin().createPartitionedTopic(topic + "-partition-x", 2); }, "-partition-x");
  EXPECT_FALSE(admin().topicExists(topic + "-partition-x"));

  // None of these created a subscription.
  EXPECT_FALSE(admin().topicExists(topic) && !admin().subscriptions(topic).empty());
}

// Names Pulsar refuses, refused the same way on embedded://: a partition past its topic's count
// (Pulsar does not create it), a partitioned topic whose partition exists already as a topic, and
// a consumer given one topic twice.
TEST_P(BadInput, PartitionsThatCannotBeAreRefusedOnEveryBackend) {
  auto topic = uniqueTopic("bad-partitions");
  admin().createPartitionedTopic(topic, 3);
  try {
    client().createProducer(topic + "-partition-5");
    FAIL() << "a producer of partition 5 of 3";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found) << e.what();
  }
  EXPECT_FALSE(admin().topicExists(topic + "-partition-5"));

  auto clash = uniqueTopic("bad-clash");
  client().createProducer(clash + "-partition-0").send(std::string("plain"));
  try {
    admin().createPartitionedTopic(clash, 2);
    FAIL() << "a partitioned topic over an existing topic named as its partition";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::broker_error) << e.what();
  }
  EXPECT_EQ(admin().partitions(clash), 0);

  auto twice = plainOptions(topic + "-partition-1");
  twice.topics.push_back(topic + "-partition-1");
  expectInvalid([&] { client().subscribe(twice); }, "is the same topic as");
}

TEST_P(BadInput, MessagesWithImpossibleDelaysAreRefused) {
  auto producer = client().createProducer(uniqueTopic("bad-delay"));
  OutgoingMessage negative;
  negative.deliverAfter = std::chrono::milliseconds(-1);
  expectInvalid([&] { producer.send(negative); }, "-1");
  OutgoingMessage both;
  both.deliverAfter = 1s;
  both.deliverAt = std::chrono::system_clock::now();
  expectInvalid([&] { producer.send(both); }, "deliverAt");
  // Event times are positive milliseconds since the epoch on the wire: an earlier one once
  // came back as a date in the year 584 million.
  OutgoingMessage ancient;
  ancient.eventTime = std::chrono::system_clock::time_point(-std::chrono::hours(24));
  expectInvalid([&] { producer.send(ancient); }, "eventTime -86400000ms");
}

// "Never" written as the largest number of milliseconds once overflowed the nanosecond clocks
// and came round as "at once": retried, redelivered or delivered immediately, silently.
TEST_P(BadInput, DurationsLongerThanAHundredYearsAreRefusedNotTurnedIntoNow) {
  constexpr auto kNever = std::chrono::milliseconds::max();
  constexpr auto k317Years = std::chrono::milliseconds(10'000'000'000'000);
  auto topic = uniqueTopic("too-long");
  auto producer = client().createProducer(topic);
  for (auto after : {kNever, k317Years}) {
    OutgoingMessage late;
    late.deliverAfter = after;
    expectInvalid([&] { producer.send(late); }, "deliverAfter");
  }

  auto consumerOptions = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1s")));
  consumerOptions.ackTimeout = kNever;
  expectInvalid([&] { client().subscribe(consumerOptions); }, "ackTimeout");
  consumerOptions.ackTimeout = {};
  consumerOptions.negativeAckRedeliveryDelay = k317Years;
  expectInvalid([&] { client().subscribe(consumerOptions); }, "negativeAckRedeliveryDelay");
  consumerOptions.negativeAckRedeliveryDelay = ConsumerOptions{}.negativeAckRedeliveryDelay;

  ClientOptions clientOptions;
  clientOptions.operationTimeout = kNever;
  expectInvalid([&] { connectAnotherClient(clientOptions); }, "operationTimeout");

  // An explicit retry delay: refused, and the message is still the consumer's to settle.
  auto consumer = client().subscribe(consumerOptions);
  producer.send("work");
  auto message = receiveNow(consumer);
  expectInvalid([&] { consumer.reconsumeLater(message, kNever); }, "delay");
  consumer.acknowledge(message);
  EXPECT_FALSE(consumer.receive(std::chrono::milliseconds(200))) << "nothing was retried";
}

TEST_P(BadInput, AMessageWithTwoPayloadsIsRefusedAndNothingIsSent) {
  auto topic = uniqueTopic("two-payloads");
  auto consumer = client().subscribe(plainOptions(topic));
  auto producer = client().createProducer(topic);
  OutgoingMessage both;
  both.payload = "four";
  both.sharedPayload = std::make_shared<const std::string>("eleven long");
  expectInvalid([&] { producer.send(both); }, "4 bytes");
  expectInvalid([&] { producer.send(both); }, "11 bytes");
  auto failed = producer.asyncSend(both, boost::asio::use_future);
  try {
    failed.get();
    ADD_FAILURE() << "asyncSend accepted a message with two payloads";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
  }
  producer.send("after");  // the only message on the topic
  EXPECT_EQ(receiveNow(consumer).data(), "after");
}

TEST_P(BadInput, ReconsumeWithoutARetryPolicyIsRefused) {
  auto topic = uniqueTopic("no-policy");
  auto consumer = client().subscribe(plainOptions(topic));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);
  expectInvalid([&] { consumer.reconsumeLater(message); }, "sub");
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
}

TEST_P(BadInput, MessagesOfAnotherConsumerAreRefused) {
  auto topic = uniqueTopic("foreign");
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  options.initialPosition = InitialPosition::earliest;
  options.retry = RetryPolicy::levels(DelayLevels::defaultTable());
  auto consumer = client().subscribe(options);
  auto otherTopic = uniqueTopic("other");
  options.topics = {otherTopic};
  auto other = client().subscribe(options);
  client().createProducer(otherTopic).send("payload");
  auto message = receiveNow(other);
  expectInvalid([&] { consumer.reconsumeLater(message); }, otherTopic);
  expectInvalid([&] { consumer.acknowledge(message); }, otherTopic);
}

TEST(ClientUrls, UnknownSchemesAndMissingHostsNameTheUrl) {
  for (std::string url :
       {"kafka://localhost:9092", "pulsar://", "pulsar+ssl://:6651", "http://x"}) {
    expectInvalid([&] { Client::connect(url); }, url);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, BadInput, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
