// Transactions of the embedded broker, the acknowledging side (Pulsar's pending-ack handle): a
// message acknowledged in a transaction is held — redelivered by nothing, still in the backlog —
// until the transaction commits (acknowledged for good) or aborts (delivered again); conflicts.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

using ::reconsume::testing::mentions;

struct TxnAckFixture {
  Harness harness;
  std::string topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer = harness.producer(topic);

  std::pair<std::shared_ptr<RecordingSink>, std::shared_ptr<client::BackendConsumer>> consumer(
      SubscriptionType type, const std::string& name = "") {
    auto sink = std::make_shared<RecordingSink>();
    auto consumer =
        harness.subscribe(topic, "s", type, sink, InitialPosition::earliest, 1000, name);
    return {sink, consumer};
  }
};

TEST(EmbeddedTransactionAck, AnAcknowledgedMessageIsHeldUntilCommit) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  auto id = send(*f.producer, "m");
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);  // Pulsar keeps it in the backlog until commit
  consumer->redeliver({id});                      // a negative acknowledgement, an ack timeout
  consumer->redeliverAll();
  EXPECT_EQ(sink->count(), 1u);
  ASSERT_TRUE(tryCommit(*txn).ok());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
  EXPECT_EQ(f.harness.admin->cursor(f.topic, "s").markDeletePosition, id);
}

TEST(EmbeddedTransactionAck, ClosingTheConsumerDoesNotHandAHeldMessageOn) {
  TxnAckFixture f;
  auto [leaving, c1] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  auto [staying, c2] = f.consumer(SubscriptionType::shared);
  auto txn = f.harness.newTransaction();
  ack(*c1, *leaving->messages()[0], txn);
  ASSERT_TRUE(callStatus([&](auto done) { c1->close(done); }).ok());
  EXPECT_EQ(staying->count(), 0u);
  ASSERT_TRUE(tryAbort(*txn).ok());
  ASSERT_EQ(staying->payloads(), Strings{"m"});
  EXPECT_EQ(staying->messages()[0]->redeliveryCount, 1);
}

TEST(EmbeddedTransactionAck, ARewindDoesNotBringAHeldMessageBack) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::exclusive);
  send(*f.producer, "0");
  send(*f.producer, "1");
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  sink->take();
  consumer->redeliverAll();  // Exclusive: the cursor rewinds to the oldest unacknowledged
  EXPECT_EQ(sink->resets(), Strings{f.topic});
  EXPECT_EQ(payloadsOf(sink->take()), Strings{"1"});
}

TEST(EmbeddedTransactionAck, TheLastConsumerLeavingDoesNotReleaseAHeldMessage) {
  TxnAckFixture f;
  auto [first, c1] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "held");
  send(*f.producer, "free");
  auto txn = f.harness.newTransaction();
  ack(*c1, *first->messages()[0], txn);
  ASSERT_TRUE(callStatus([&](auto done) { c1->close(done); }).ok());
  auto [second, c2] = f.consumer(SubscriptionType::shared);
  EXPECT_EQ(second->payloads(), Strings{"free"});
  ASSERT_TRUE(tryCommit(*txn).ok());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);  // "free" only
}

TEST(EmbeddedTransactionAck, AbortRedeliversOnSharedWithTheCountRaised) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  auto id = send(*f.producer, "m");
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  ASSERT_TRUE(tryAbort(*txn).ok());
  ASSERT_EQ(sink->payloads(), (Strings{"m", "m"}));
  EXPECT_EQ(sink->messages()[1]->id, id);
  EXPECT_EQ(sink->messages()[1]->redeliveryCount, 1);
  EXPECT_TRUE(sink->resets().empty());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);
}

TEST(EmbeddedTransactionAck, AbortOnKeySharedRedeliversToTheKeysConsumer) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::keyShared);
  OutgoingMessage message;
  message.key = "k";
  message.payload = "m";
  send(*f.producer, message);
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  ASSERT_TRUE(tryAbort(*txn).ok());
  ASSERT_EQ(sink->count(), 2u);
  EXPECT_EQ(sink->messages()[1]->redeliveryCount, 1);
}

TEST(EmbeddedTransactionAck, AbortOnExclusiveRewinds) {
  for (auto type : {SubscriptionType::exclusive, SubscriptionType::failover}) {
    Harness harness(uniqueBrokerName() + (type == SubscriptionType::exclusive ? "-e" : "-f"));
    auto topic = topicName("t");
    auto producer = harness.producer(topic);
    auto sink = std::make_shared<RecordingSink>();
    auto consumer = harness.subscribe(topic, "s", type, sink);
    send(*producer, "0");
    send(*producer, "1");
    send(*producer, "2");
    auto txn = harness.newTransaction();
    ack(*consumer, *sink->messages()[0], txn);
    ack(*consumer, *sink->messages()[1]);
    sink->take();
    ASSERT_TRUE(tryAbort(*txn).ok());
    EXPECT_EQ(sink->resets(), Strings{topic});
    // Everything unacknowledged, from the oldest; these types keep no redelivery count.
    auto again = sink->take();
    EXPECT_EQ(payloadsOf(again), (Strings{"0", "2"}));
    ASSERT_FALSE(again.empty());
    EXPECT_EQ(again[0]->redeliveryCount, 0);
  }
}

TEST(EmbeddedTransactionAck, TimeoutReleasesTheAcknowledgements) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  auto txn = f.harness.newTransaction(30s);
  ack(*consumer, *sink->messages()[0], txn);
  f.harness.clock->advance(30s - 1ms);
  EXPECT_EQ(sink->count(), 1u);
  f.harness.clock->advance(1ms);
  ASSERT_EQ(sink->count(), 2u);
  EXPECT_EQ(sink->messages()[1]->redeliveryCount, 1);
}

TEST(EmbeddedTransactionAck, AHeldMessageConflictsWithAnotherTransactionAndTheSameOne) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  auto holder = f.harness.newTransaction();  // (0,0)
  auto other = f.harness.newTransaction();   // (0,1)
  const auto& message = *sink->messages()[0];
  ack(*consumer, message, holder);
  auto conflict = tryAck(*consumer, message, other);
  EXPECT_EQ(conflict.code, errc::transaction_conflict);
  EXPECT_TRUE(mentions(conflict.message, "is pending in transaction (0,0)")) << conflict.message;
  EXPECT_TRUE(mentions(conflict.message, "in transaction (0,1)")) << conflict.message;
  EXPECT_TRUE(mentions(conflict.message, message.id.toString())) << conflict.message;
  EXPECT_EQ(tryAck(*consumer, message, holder).code, errc::transaction_conflict);
  ASSERT_TRUE(tryCommit(*other).ok());  // the refused acknowledgement left nothing behind
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);
  ASSERT_TRUE(tryCommit(*holder).ok());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
}

TEST(EmbeddedTransactionAck, AnAcknowledgedMessageConflicts) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  ack(*consumer, *sink->messages()[0]);
  auto txn = f.harness.newTransaction();
  auto conflict = tryAck(*consumer, *sink->messages()[0], txn);
  EXPECT_EQ(conflict.code, errc::transaction_conflict);
  EXPECT_TRUE(mentions(conflict.message, "was acknowledged before")) << conflict.message;
  EXPECT_TRUE(mentions(conflict.message, "(0,0)")) << conflict.message;
}

TEST(EmbeddedTransactionAck, APlainAcknowledgementOfAHeldMessageApplies) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  ack(*consumer, *sink->messages()[0]);  // Pulsar does not check it against pending ones
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
  ASSERT_TRUE(tryAbort(*txn).ok());
  EXPECT_EQ(sink->count(), 1u);  // acknowledged: the abort has nothing to give back
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
}

TEST(EmbeddedTransactionAck, AcknowledgingInAnEndedTransactionIsRefused) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "m");
  auto txn = f.harness.newTransaction();
  ASSERT_TRUE(tryAbort(*txn).ok());
  auto status = tryAck(*consumer, *sink->messages()[0], txn);
  EXPECT_EQ(status.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(status.message, "cannot acknowledge message")) << status.message;
  EXPECT_TRUE(mentions(status.message, "(0,0)")) << status.message;
  consumer->redeliver({sink->messages()[0]->id});
  EXPECT_EQ(sink->count(), 2u);  // not held: it is still an ordinary unacknowledged message
}

TEST(EmbeddedTransactionAck, ASeekDoesNotReleaseAHeldMessage) {
  TxnAckFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "0");
  send(*f.producer, "1");
  auto txn = f.harness.newTransaction();
  ack(*consumer, *sink->messages()[0], txn);
  sink->take();
  ASSERT_TRUE(callStatus([&](auto done) { consumer->seek(MessageId::earliest(), done); }).ok());
  EXPECT_EQ(payloadsOf(sink->take()), Strings{"1"});
  ASSERT_TRUE(tryAbort(*txn).ok());
  EXPECT_EQ(payloadsOf(sink->take()), Strings{"0"});
}

// The transactional retry: publish the retry message and acknowledge the original together.
TEST(EmbeddedTransactionAck, PublishAndAcknowledgeCommitTogetherOrNotAtAll) {
  for (bool commit : {true, false}) {
    SCOPED_TRACE(commit ? "commit" : "abort");
    Harness harness(uniqueBrokerName() + (commit ? "-commit" : "-abort"));
    auto topic = topicName("t");
    auto retryTopic = topicName("t-s-RETRY");
    auto producer = harness.producer(topic);
    auto retryProducer = harness.producer(retryTopic);
    auto sink = std::make_shared<RecordingSink>();
    auto retrySink = std::make_shared<RecordingSink>();
    auto consumer = harness.subscribe(topic, "s", SubscriptionType::shared, sink);
    auto retryConsumer = harness.subscribe(retryTopic, "s", SubscriptionType::shared, retrySink);
    send(*producer, "m");
    auto txn = harness.newTransaction();
    send(*retryProducer, "m again", txn);
    ack(*consumer, *sink->messages()[0], txn);
    ASSERT_TRUE((commit ? tryCommit(*txn) : tryAbort(*txn)).ok());
    EXPECT_EQ(retrySink->payloads(), commit ? Strings{"m again"} : Strings{});
    EXPECT_EQ(sink->count(), commit ? 1u : 2u);
    EXPECT_EQ(harness.backlog(topic, "s"), commit ? 0 : 1);
  }
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
