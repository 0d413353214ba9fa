// Batching (SPEC.md section 11) as a user sees it, on every backend: sends made together complete
// each with its own id and arrive in order, whole; retry copies due close together (retry
// batching) are none of them early and none lost, each with its own properties; a negative
// acknowledgement in a batch brings back what Pulsar's entries bring back; with batch-index
// acknowledgement nothing acknowledged or retried comes back after a close; dead letters are never
// batched.
#include <boost/asio/use_future.hpp>
#include <future>
#include <map>
#include <set>

#include "../integration/backlog_wait.hpp"
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Batching : public BehaviourTest {};

TEST_P(Batching, SendsMadeTogetherCompleteEachWithItsOwnIdAndArriveInOrder) {
  auto topic = uniqueTopic("batched");
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  auto consumer = client().subscribe(confirmedAcks(options));
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  producerOptions.compression = Compression::lz4;  // applies to whole entries
  auto producer = client().createProducer(producerOptions);
  constexpr int kCount = 200;
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < kCount; ++i) {
    sent.push_back(producer.asyncSend(OutgoingMessage{.payload = "m" + std::to_string(i),
                                                      .key = "k" + std::to_string(i % 3),
                                                      .properties = {{"n", std::to_string(i)}}},
                                      boost::asio::use_future));
  }
  std::vector<MessageId> ids;
  for (auto& done : sent) ids.push_back(done.get());
  int batched = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i].batchIndex() >= 0) ++batched;
    if (i > 0) EXPECT_LT(ids[i - 1], ids[i]) << "ids follow the order of the sends";
  }
  // embedded:// stores messages one by one (SPEC.md section 11); Pulsar got shared entries.
  if (embedded()) {
    EXPECT_EQ(batched, 0);
  } else {
    EXPECT_GT(batched, kCount / 2) << "200 sends in a row were expected to share entries";
  }
  for (int i = 0; i < kCount; ++i) {
    auto message = receiveNow(consumer);
    EXPECT_EQ(message.data(), "m" + std::to_string(i));
    EXPECT_EQ(message.key(), "k" + std::to_string(i % 3));
    EXPECT_EQ(message.property("n"), std::to_string(i));
    EXPECT_EQ(message.id(), ids[static_cast<std::size_t>(i)]);
    consumer.acknowledge(message);
  }
  expectNothing(consumer);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// A negative acknowledgement of one message of a batch (SPEC.md section 11): Pulsar's broker
// redelivers entries, so the batch's other messages received and not acknowledged come back with
// it, counted as redelivered, and those acknowledged do not. embedded:// stores each message as
// its own entry: the message alone comes back.
TEST_P(Batching, ANegativeAcknowledgementInABatchBringsBackItsEntrysUnacknowledgedMessages) {
  auto topic = uniqueTopic("batch-nack");
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  options.negativeAckRedeliveryDelay = 100ms;
  auto consumer = client().subscribe(confirmedAcks(options));
  sendInOneEntry(topic, 3);
  std::vector<Message> received;
  for (int i = 0; i < 3; ++i) received.push_back(receiveNow(consumer));
  consumer.acknowledge(received[0]);
  consumer.negativeAcknowledge(received[1]);  // received[2] is held, not acknowledged
  letPass(100ms);

  auto again = receiveNow(consumer);
  EXPECT_EQ(again.data(), "m1");
  EXPECT_EQ(again.redeliveryCount(), 1);
  if (embedded()) {
    expectNothing(consumer);
  } else {
    auto sibling = receiveNow(consumer);
    EXPECT_EQ(sibling.data(), "m2");
    EXPECT_EQ(sibling.redeliveryCount(), 1);
    consumer.acknowledge(sibling);
    expectNothing(consumer);  // m0, acknowledged, stays away
  }
  consumer.acknowledge(again);
  consumer.acknowledge(received[2]);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// Batch-index acknowledgement (SPEC.md section 11): of a batch entry whose consumer closed, what
// it acknowledged, or moved with reconsumeLater, is not delivered again — only the messages it
// left open come back, and the retry copy at its time: one outcome per message. (Without the
// option, Pulsar would deliver the whole entry again.) embedded:// has no batch entries, and the
// same holds there message by message.
TEST_P(Batching, WithBatchIndexAcknowledgementOnlyAnEntrysOpenMessagesComeBackAfterAClose) {
  auto topic = uniqueTopic("batch-index-ack");
  auto options =
      confirmedAcks(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms"))));
  options.batchIndexAcknowledgement = true;
  {
    auto consumer = client().subscribe(options);
    sendInOneEntry(topic, 4);
    std::vector<Message> received;
    for (int i = 0; i < 4; ++i) received.push_back(receiveNow(consumer));
    consumer.acknowledge(received[0]);
    consumer.reconsumeLater(received[1]);
    consumer.close();  // m2 and m3 open
  }
  letPass(200ms);
  auto again = client().subscribe(options);
  std::map<std::string, Message> back;
  for (int i = 0; i < 3; ++i) {
    auto message = receiveNow(again);
    back.emplace(message.data(), message);
    again.acknowledge(message);
  }
  ASSERT_EQ(back.size(), 3u);
  ASSERT_TRUE(back.contains("m1") && back.contains("m2") && back.contains("m3"));
  EXPECT_EQ(back.at("m1").property("RECONSUMETIMES"), "1") << "m1 comes as its retry copy only";
  EXPECT_FALSE(back.at("m2").property("RECONSUMETIMES"));
  expectNothing(again);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

// An entry larger than the consumer's queue (Pulsar sends a whole entry on one permit and counts
// every message of it, overdrawing the permits), then a redelivery of everything: the consumer
// grants enough permits to get the broker sending again, and every message comes.
TEST_P(Batching, RedeliveringEverythingAfterAnEntryLargerThanTheQueueKeepsMessagesComing) {
  auto topic = uniqueTopic("overdrawn");
  auto options = plainOptions(topic);
  options.subscriptionType = SubscriptionType::shared;
  options.receiverQueueSize = 10;
  auto consumer = client().subscribe(options);
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  constexpr int kCount = 30;
  producerOptions.batching.maxMessages = kCount;  // one entry, full with the last send
  producerOptions.batching.maxPublishDelay = std::chrono::seconds(10);
  auto producer = client().createProducer(producerOptions);
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < kCount; ++i) {
    sent.push_back(producer.asyncSend(OutgoingMessage{.payload = "m" + std::to_string(i)},
                                      boost::asio::use_future));
  }
  for (auto& done : sent) done.get();
  receiveNow(consumer);
  receiveNow(consumer);
  consumer.redeliverUnacknowledgedMessages();
  std::set<std::string> seen;
  while (seen.size() < kCount) {
    auto message = receiveNow(consumer);
    seen.insert(std::string(message.data()));
    consumer.acknowledge(message);
  }
  EXPECT_EQ(integration::awaitBacklog(admin(), topic, "sub", 0), 0);
}

TEST_P(Batching, RetryCopiesDueTogetherAreNeitherEarlyNorLost) {
  auto topic = uniqueTopic("retry-batched");
  auto consumer = client().subscribe(
      confirmedAcks(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1s"), 2))));
  auto producer = client().createProducer(topic);
  constexpr int kCount = 10;
  for (int i = 0; i < kCount; ++i) {
    producer.send(OutgoingMessage{.payload = "r" + std::to_string(i),
                                  .properties = {{"n", std::to_string(i)}}});
  }
  std::vector<Message> received;
  for (int i = 0; i < kCount; ++i) received.push_back(receiveNow(consumer));
  // Delays 1000..1009 ms: all within the default 10 ms window.
  std::map<std::string, Clock::time_point> due;
  std::vector<std::future<void>> retried;
  for (int i = 0; i < kCount; ++i) {
    const auto& message = received[static_cast<std::size_t>(i)];
    ReconsumeOptions options;
    options.delay = std::chrono::milliseconds(1000 + i);
    due[std::string(message.data())] = now() + *options.delay;
    retried.push_back(consumer.asyncReconsumeLater(message, options, boost::asio::use_future));
  }
  for (auto& done : retried) done.get();
  // None before the earliest due time; then each copy not before its own.
  auto first = receiveAt(consumer, due.at("r0"));
  if (!embedded()) {
    EXPECT_GE(std::chrono::system_clock::now(), due.at(std::string(first.data())));
  }
  std::map<std::string, Message> copies{{std::string(first.data()), first}};
  letPass(10ms);
  while (copies.size() < kCount) {
    auto copy = receiveNow(consumer);
    auto payload = std::string(copy.data());
    if (!embedded()) {
      EXPECT_GE(std::chrono::system_clock::now(), due.at(payload)) << payload << " came early";
    }
    EXPECT_TRUE(copies.emplace(payload, copy).second) << payload << " came twice";
  }
  for (const auto& [payload, copy] : copies) {
    EXPECT_EQ("r" + *copy.property("n"), payload) << "each copy keeps its own properties";
    EXPECT_EQ(copy.property("RECONSUMETIMES"), "1");
    EXPECT_EQ(copy.topic(), *consumer.retryTopic());
    consumer.acknowledge(copy);
  }
  expectNothing(consumer);
  EXPECT_EQ(admin().backlog(*consumer.retryTopic(), "sub"), 0);
}

TEST_P(Batching, DeadLettersAreWrittenOneEntryEachSoThatTheyArePurgedOneByOne) {
  auto topic = uniqueTopic("dead-unbatched");
  auto consumer =
      client().subscribe(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1s"))));
  auto producer = client().createProducer(topic);
  constexpr int kCount = 5;
  for (int i = 0; i < kCount; ++i) producer.send("d" + std::to_string(i));
  std::vector<std::future<void>> moved;
  for (int i = 0; i < kCount; ++i) {
    moved.push_back(
        consumer.asyncDeadLetter(receiveNow(consumer), "poison", boost::asio::use_future));
  }
  for (auto& done : moved) done.get();
  auto deadLetters = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(deadLetters.size(), static_cast<std::size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    const auto& dead = deadLetters[static_cast<std::size_t>(i)];
    EXPECT_EQ(dead.id().batchIndex(), -1) << dead.id().toString() << " shares an entry";
    // In the order of the calls, the first ones too, which waited for the producer (SPEC.md §1).
    EXPECT_EQ(std::string(dead.data()), "d" + std::to_string(i));
  }
}

TEST_P(Batching, BadBatchingSettingsAreRefusedNamingTheSetting) {
  ProducerOptions options;
  options.topic = uniqueTopic("bad-batching");
  options.batching.maxMessages = 0;
  try {
    client().createProducer(options);
    ADD_FAILURE() << "maxMessages 0 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("batching.maxMessages"), std::string::npos) << e.what();
  }
  options.batching.maxMessages = 10;
  options.batching.maxPublishDelay = std::chrono::microseconds(-5);
  try {
    client().createProducer(options);
    ADD_FAILURE() << "a negative maxPublishDelay was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("maxPublishDelay -5us"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Batching, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
