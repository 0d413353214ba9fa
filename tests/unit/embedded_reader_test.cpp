// Readers (non-durable subscriptions), lastMessageId and seek.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

struct ReaderFixture {
  Harness harness;
  std::string topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer = harness.producer(topic);
  std::vector<MessageId> ids;

  void fill(int count) {
    for (int i = 0; i < count; ++i) ids.push_back(send(*producer, std::to_string(i)));
  }

  std::shared_ptr<client::BackendConsumer> reader(std::shared_ptr<RecordingSink> sink,
                                                  std::optional<MessageId> start,
                                                  bool inclusive = false,
                                                  const std::string& name = "reader-1") {
    client::SubscribeSpec spec;
    spec.topic = topic;
    spec.subscription = name;
    spec.type = SubscriptionType::exclusive;
    spec.durable = false;
    spec.startMessageId = start;
    spec.startMessageIdInclusive = inclusive;
    return harness.subscribe(spec, std::move(sink));
  }
};

TEST(EmbeddedReader, StartsAfterTheStartMessageId) {
  ReaderFixture f;
  f.fill(4);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, f.ids[1]);
  EXPECT_EQ(sink->payloads(), (Strings{"2", "3"}));
}

TEST(EmbeddedReader, InclusiveStartsAtIt) {
  ReaderFixture f;
  f.fill(4);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, f.ids[1], true);
  EXPECT_EQ(sink->payloads(), (Strings{"1", "2", "3"}));
}

TEST(EmbeddedReader, EarliestReadsEverything) {
  ReaderFixture f;
  f.fill(2);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::earliest());
  send(*f.producer, "2");
  EXPECT_EQ(sink->payloads(), (Strings{"0", "1", "2"}));
}

TEST(EmbeddedReader, LatestReadsOnlyWhatComesNext) {
  ReaderFixture f;
  f.fill(2);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::latest());
  send(*f.producer, "2");
  EXPECT_EQ(sink->payloads(), Strings{"2"});
}

TEST(EmbeddedReader, LatestInclusiveStartsAtTheLastMessage) {
  ReaderFixture f;
  f.fill(3);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::latest(), true);
  EXPECT_EQ(sink->payloads(), Strings{"2"});
}

TEST(EmbeddedReader, NeedsNoAcknowledgementAndLeavesNoSubscriptionBehind) {
  ReaderFixture f;
  f.fill(3);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::earliest(), false, "reader-x");
  ASSERT_EQ(sink->count(), 3u);
  EXPECT_EQ(f.harness.backlog(f.topic, "reader-x"), 0);
  callStatus([&](auto done) { reader->close(done); }).raiseIfFailed();
  EXPECT_TRUE(f.harness.admin->subscriptions(f.topic).empty());
}

TEST(EmbeddedReader, ANameInUseIsRefused) {
  ReaderFixture f;
  auto durable = f.harness.subscribe(f.topic, "taken", SubscriptionType::shared,
                                     std::make_shared<RecordingSink>());
  client::SubscribeSpec spec;
  spec.topic = f.topic;
  spec.subscription = "taken";
  spec.durable = false;
  std::shared_ptr<client::BackendConsumer> reader;
  auto status = f.harness.trySubscribe(spec, std::make_shared<RecordingSink>(), reader);
  EXPECT_EQ(status.code, errc::broker_error);
  EXPECT_NE(status.message.find("'taken'"), std::string::npos);
}

TEST(EmbeddedLastMessageId, EarliestForAnEmptyTopicThenTheLastEntry) {
  ReaderFixture f;
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::earliest());
  MessageId last;
  callStatus([&](auto done) { reader->lastMessageId(done); }, last).raiseIfFailed();
  EXPECT_EQ(last, MessageId::earliest());
  f.fill(3);
  callStatus([&](auto done) { reader->lastMessageId(done); }, last).raiseIfFailed();
  EXPECT_EQ(last, f.ids[2]);
}

TEST(EmbeddedSeek, EveryMessageAfterTheIdIsUndeliveredAndUnacknowledgedAgain) {
  ReaderFixture f;
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = f.harness.subscribe(f.topic, "s", SubscriptionType::exclusive, sink);
  f.fill(5);
  for (const auto& m : sink->take()) ack(*consumer, *m);
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);

  callStatus([&](auto done) { consumer->seek(f.ids[1], done); }).raiseIfFailed();
  EXPECT_EQ(sink->resets(), Strings{f.topic});
  EXPECT_EQ(payloadsOf(sink->take()), (Strings{"2", "3", "4"}));
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 3);
}

TEST(EmbeddedSeek, ForwardLeavesTheSkippedMessagesAcknowledged) {
  ReaderFixture f;
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = f.harness.subscribe(f.topic, "s", SubscriptionType::shared, sink,
                                      InitialPosition::earliest, /*receiverQueueSize=*/1);
  f.fill(5);
  callStatus([&](auto done) { consumer->seek(f.ids[2], done); }).raiseIfFailed();
  EXPECT_EQ(payloadsOf(sink->take()), Strings{"3"});
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 2);
}

TEST(EmbeddedSeek, EarliestAndLatest) {
  ReaderFixture f;
  f.fill(3);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = f.harness.subscribe(f.topic, "s", SubscriptionType::exclusive, sink);
  sink->take();
  callStatus([&](auto done) { consumer->seek(MessageId::latest(), done); }).raiseIfFailed();
  EXPECT_TRUE(sink->take().empty());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
  callStatus([&](auto done) { consumer->seek(MessageId::earliest(), done); }).raiseIfFailed();
  EXPECT_EQ(payloadsOf(sink->take()), (Strings{"0", "1", "2"}));
}

TEST(EmbeddedSeek, ResetsEveryConsumerOfTheSubscription) {
  ReaderFixture f;
  auto one = std::make_shared<RecordingSink>();
  auto two = std::make_shared<RecordingSink>();
  auto c1 = f.harness.subscribe(f.topic, "s", SubscriptionType::shared, one);
  auto c2 = f.harness.subscribe(f.topic, "s", SubscriptionType::shared, two);
  f.fill(4);
  callStatus([&](auto done) { c1->seek(MessageId::earliest(), done); }).raiseIfFailed();
  EXPECT_EQ(one->resets().size(), 1u);
  EXPECT_EQ(two->resets().size(), 1u);
  EXPECT_EQ(one->take().size() + two->take().size(), 4u);
}

TEST(EmbeddedSeek, ReaderGoesBack) {
  ReaderFixture f;
  f.fill(3);
  auto sink = std::make_shared<RecordingSink>();
  auto reader = f.reader(sink, MessageId::earliest());
  sink->take();
  callStatus([&](auto done) { reader->seek(f.ids[0], done); }).raiseIfFailed();
  EXPECT_EQ(payloadsOf(sink->take()), (Strings{"1", "2"}));
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
