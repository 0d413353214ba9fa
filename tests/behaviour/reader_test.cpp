// Readers: from the earliest message, hasMessageAvailable, seek; nothing acknowledged.
#include <algorithm>
#include <boost/asio/use_future.hpp>
#include <future>
#include <map>
#include <set>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Readers : public BehaviourTest {};

TEST_P(Readers, ReadEverythingFromTheEarliestInOrder) {
  auto topic = uniqueTopic("reader");
  auto producer = client().createProducer(topic);
  std::vector<MessageId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(producer.send("m" + std::to_string(i)));

  auto reader = client().createReader(topic);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(reader.hasMessageAvailable());
    auto message = reader.readNext(kDueWithin);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->id(), ids[i]);
    EXPECT_EQ(message->data(), "m" + std::to_string(i));
  }
  EXPECT_FALSE(reader.hasMessageAvailable());
  EXPECT_FALSE(reader.readNext(200ms));

  producer.send("late");
  EXPECT_TRUE(reader.hasMessageAvailable());
  EXPECT_EQ(reader.readNext(kDueWithin)->data(), "late");
}

TEST_P(Readers, EmptyTopicHasNothingAvailable) {
  auto topic = uniqueTopic("empty");
  client().createProducer(topic);  // creates the topic
  auto reader = client().createReader(topic);
  EXPECT_FALSE(reader.hasMessageAvailable());
}

TEST_P(Readers, StartAfterAnIdAndSeek) {
  auto topic = uniqueTopic("seek");
  auto producer = client().createProducer(topic);
  std::vector<MessageId> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(producer.send("m" + std::to_string(i)));

  ReaderOptions options;
  options.topic = topic;
  options.startMessageId = ids[1];
  auto reader = client().createReader(options);
  EXPECT_EQ(reader.readNext(kDueWithin)->id(), ids[2]);

  reader.seek(ids[0]);
  EXPECT_EQ(reader.readNext(kDueWithin)->id(), ids[1]);

  options.startMessageIdInclusive = true;
  auto inclusive = client().createReader(options);
  EXPECT_EQ(inclusive.readNext(kDueWithin)->id(), ids[1]);
}

// A start after an id without a batch index (the Go form of an origin id, a cursor position) is
// after its whole entry, as the Java client's reader starts. On embedded:// every message is an
// entry of its own, so the entry of the first message holds only that one.
TEST_P(Readers, AStartAfterAnEntryLevelIdIsAfterTheWholeEntry) {
  auto topic = uniqueTopic("entry-start");
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  producerOptions.batching.maxMessages = 4;  // one entry of four, full with the last send
  producerOptions.batching.maxPublishDelay = std::chrono::seconds(10);
  auto producer = client().createProducer(producerOptions);
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < 4; ++i) {
    sent.push_back(producer.asyncSend(OutgoingMessage{.payload = "b" + std::to_string(i)},
                                      boost::asio::use_future));
  }
  std::vector<MessageId> ids;
  for (auto& done : sent) ids.push_back(done.get());
  const auto first = ids[0];
  client().createProducer(topic).send("after");  // at once, not after the batching delay

  ReaderOptions options;
  options.topic = topic;
  options.startMessageId = MessageId(first.ledger(), first.entry());
  auto reader = client().createReader(options);
  auto next = reader.readNext(kDueWithin);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->data(), embedded() ? "b1" : "after");
}

// hasMessageAvailable() says what readNext() would do: for a reader from the latest message
// inclusive (which reads the topic's last message first), and for an inclusive start at an id in
// the Go client's form (partition 0 on a topic that is not partitioned, where Java writes -1).
TEST_P(Readers, HasMessageAvailableAgreesWithReadNext) {
  auto topic = uniqueTopic("available");
  auto producer = client().createProducer(topic);
  std::vector<MessageId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(producer.send("m" + std::to_string(i)));

  ReaderOptions latest;
  latest.topic = topic;
  latest.startMessageId = MessageId::latest();
  latest.startMessageIdInclusive = true;
  auto fromLatest = client().createReader(latest);
  EXPECT_TRUE(fromLatest.hasMessageAvailable());
  EXPECT_EQ(fromLatest.readNext(kDueWithin)->data(), "m2");
  EXPECT_FALSE(fromLatest.hasMessageAvailable());

  ReaderOptions goForm;
  goForm.topic = topic;
  goForm.startMessageId = MessageId(ids[2].ledger(), ids[2].entry(), 0);
  goForm.startMessageIdInclusive = true;
  auto fromGoForm = client().createReader(goForm);
  EXPECT_TRUE(fromGoForm.hasMessageAvailable());
  EXPECT_EQ(fromGoForm.readNext(kDueWithin)->data(), "m2");
}

// On a partitioned topic, seek() to the id of a message read moves that partition alone: the
// others are neither read again nor skipped. An id that names no partition is refused.
TEST_P(Readers, SeekOnAPartitionedTopicMovesOnlyThePartitionOfTheId) {
  auto topic = uniqueTopic("seek-partitions");
  admin().createPartitionedTopic(topic, 3);
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  producerOptions.batching.enabled = false;
  auto producer = client().createProducer(producerOptions);
  constexpr int kCount = 12;
  for (int i = 0; i < kCount; ++i) {
    producer.send(OutgoingMessage{.payload = "m" + std::to_string(i), .key = std::to_string(i)});
  }
  ReaderOptions options;
  options.topic = topic;
  auto reader = client().createReader(options);
  std::map<std::string, MessageId> read;
  for (int i = 0; i < kCount; ++i) {
    auto message = reader.readNext(kDueWithin);
    ASSERT_TRUE(message);
    read.emplace(std::string(message->data()), message->id());
  }
  // Back to the first message read from one partition: the rest of that partition comes again,
  // nothing of the other two.
  const auto target = read.begin()->second;
  std::vector<MessageId> ofPartition;
  for (const auto& [payload, id] : read) {
    if (id.partition() == target.partition()) ofPartition.push_back(id);
  }
  std::sort(ofPartition.begin(), ofPartition.end());
  reader.seek(ofPartition.front());
  std::set<std::string> again;
  while (auto message = reader.readNext(std::chrono::milliseconds(500))) {
    EXPECT_EQ(message->id().partition(), target.partition()) << message->data();
    again.insert(std::string(message->data()));
  }
  EXPECT_EQ(again.size(), ofPartition.size() - 1);

  try {
    reader.seek(MessageId(target.ledger(), target.entry(), 7));
    FAIL() << "a seek to partition 7 of 3";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
  }
}

// A reader from MessageId::latest() reads what is published after it started — inclusive, the
// topic's last message first, as the Java client's reader does —, and one moved there by seek()
// reads what comes next.
TEST_P(Readers, FromTheLatestReadWhatComesNextAndInclusiveTheLastMessageFirst) {
  auto topic = uniqueTopic("latest");
  auto producer = client().createProducer(topic);
  producer.send("m0");
  auto last = producer.send("m1");

  ReaderOptions options;
  options.topic = topic;
  options.startMessageId = MessageId::latest();
  auto reader = client().createReader(options);
  options.startMessageIdInclusive = true;
  auto inclusive = client().createReader(options);
  auto inclusiveFirst = inclusive.readNext(kDueWithin);
  ASSERT_TRUE(inclusiveFirst) << "an inclusive reader from the latest read nothing";
  EXPECT_EQ(inclusiveFirst->id(), last);

  auto next = producer.send("m2");
  auto first = reader.readNext(kDueWithin);
  ASSERT_TRUE(first) << "a reader from the latest read nothing";
  EXPECT_EQ(first->id(), next);
  EXPECT_EQ(inclusive.readNext(kDueWithin)->id(), next);

  producer.send("m3");
  reader.seek(MessageId::latest());
  auto after = producer.send("m4");
  auto sought = reader.readNext(kDueWithin);
  ASSERT_TRUE(sought) << "a reader moved to the latest read nothing";
  EXPECT_EQ(sought->id(), after);
}

// Inclusive from the latest: on an empty topic, the first message published; after a burst the
// producer batched, the burst's last message (not its batch's first).
TEST_P(Readers, FromTheLatestInclusiveOnAnEmptyTopicAndAfterABatch) {
  auto topic = uniqueTopic("latest-inclusive");
  auto producer = client().createProducer(topic);
  ReaderOptions options;
  options.topic = topic;
  options.startMessageId = MessageId::latest();
  options.startMessageIdInclusive = true;
  auto onEmpty = client().createReader(options);
  EXPECT_FALSE(onEmpty.readNext(200ms));
  auto first = producer.send("first");
  auto read = onEmpty.readNext(kDueWithin);
  ASSERT_TRUE(read) << "an inclusive reader from the latest of an empty topic read nothing";
  EXPECT_EQ(read->id(), first);

  std::vector<std::future<MessageId>> burst;
  for (int i = 0; i < 10; ++i) {
    OutgoingMessage message;
    message.payload = "b" + std::to_string(i);
    burst.push_back(producer.asyncSend(message, boost::asio::use_future));
  }
  MessageId last;
  for (auto& sent : burst) last = sent.get();
  auto afterBurst = client().createReader(options);
  read = afterBurst.readNext(kDueWithin);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->id(), last);
  EXPECT_EQ(read->data(), "b9");
}

TEST_P(Readers, ReadingLeavesSubscriptionsAlone) {
  auto topic = uniqueTopic("untouched");
  ConsumerOptions consumerOptions;
  consumerOptions.topics = {topic};
  consumerOptions.subscription = "sub";
  auto consumer = client().subscribe(consumerOptions);
  client().createProducer(topic).send("payload");
  EXPECT_EQ(readAll(topic).size(), 1u);
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  auto subscriptions = admin().subscriptions(topic);
  ASSERT_EQ(subscriptions.size(), 1u) << "the reader's subscription is gone after close";
  EXPECT_EQ(subscriptions[0].name, "sub");
}

INSTANTIATE_TEST_SUITE_P(Backends, Readers, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
