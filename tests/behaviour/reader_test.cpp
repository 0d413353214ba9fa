// Readers: from the earliest message, hasMessageAvailable, seek; nothing acknowledged.
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
