// Transactions of the embedded broker, the publishing side (Pulsar's transaction buffer): ids from
// the coordinator, messages invisible until commit and discarded on abort, the read limit an open
// transaction puts on its topic, timeouts on the broker's clock, ending a transaction twice.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

using ::reconsume::testing::mentions;

struct TxnFixture {
  Harness harness;
  std::string topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer = harness.producer(topic);
  std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();
  std::shared_ptr<client::BackendConsumer> consumer =
      harness.subscribe(topic, "s", SubscriptionType::shared, sink);
};

TEST(EmbeddedTransaction, IdsComeFromCoordinatorZeroCountingFromZero) {
  Harness harness;
  Harness other(harness.brokerName, "", harness.clock);  // a second client of the same broker
  EXPECT_EQ(harness.newTransaction()->id(), (TxnId{0, 0}));
  EXPECT_EQ(harness.newTransaction()->id(), (TxnId{0, 1}));
  EXPECT_EQ(other.newTransaction()->id(), (TxnId{0, 2}));  // one coordinator per broker
  Harness elsewhere(harness.brokerName + "-other");
  EXPECT_EQ(elsewhere.newTransaction()->id(), (TxnId{0, 0}));
}

TEST(EmbeddedTransaction, PublishedMessagesAreInvisibleUntilCommitThenVisibleInOrder) {
  TxnFixture f;
  auto txn = f.harness.newTransaction();
  auto a = send(*f.producer, "a", txn);
  auto b = send(*f.producer, "b", txn);
  EXPECT_EQ(b.entry(), a.entry() + 1);  // stored at once: the ids are final
  EXPECT_EQ(f.sink->count(), 0u);
  ASSERT_TRUE(tryCommit(*txn).ok());
  ASSERT_EQ(f.sink->payloads(), (Strings{"a", "b"}));
  EXPECT_EQ(f.sink->messages()[0]->id, a);
  EXPECT_EQ(f.sink->messages()[1]->id, b);
}

TEST(EmbeddedTransaction, AbortDiscardsThePublishes) {
  TxnFixture f;
  auto txn = f.harness.newTransaction();
  send(*f.producer, "discarded", txn);
  ASSERT_TRUE(tryAbort(*txn).ok());
  send(*f.producer, "plain");
  EXPECT_EQ(f.sink->payloads(), Strings{"plain"});
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);
}

TEST(EmbeddedTransaction, ALaterPlainMessageWaitsForTheOpenTransaction) {
  for (bool commit : {true, false}) {
    SCOPED_TRACE(commit ? "commit" : "abort");
    Harness harness(uniqueBrokerName() + (commit ? "-commit" : "-abort"));
    auto topic = topicName("t");
    auto producer = harness.producer(topic);
    auto sink = std::make_shared<RecordingSink>();
    auto consumer = harness.subscribe(topic, "s", SubscriptionType::exclusive, sink);
    send(*producer, "before");
    auto txn = harness.newTransaction();
    send(*producer, "A", txn);
    send(*producer, "B");  // not transactional, yet behind A's transaction
    EXPECT_EQ(sink->payloads(), Strings{"before"});
    ASSERT_TRUE((commit ? tryCommit(*txn) : tryAbort(*txn)).ok());
    EXPECT_EQ(sink->payloads(), commit ? (Strings{"before", "A", "B"}) : (Strings{"before", "B"}));
  }
}

TEST(EmbeddedTransaction, TheOldestOpenTransactionHoldsBackAYoungerCommittedOne) {
  TxnFixture f;
  auto older = f.harness.newTransaction();
  auto younger = f.harness.newTransaction();
  send(*f.producer, "older", older);
  send(*f.producer, "younger", younger);
  ASSERT_TRUE(tryCommit(*younger).ok());
  EXPECT_EQ(f.sink->count(), 0u);
  ASSERT_TRUE(tryCommit(*older).ok());
  EXPECT_EQ(f.sink->payloads(), (Strings{"older", "younger"}));
}

TEST(EmbeddedTransaction, OneTransactionSpansTopics) {
  TxnFixture f;
  auto otherTopic = topicName("other");
  auto otherProducer = f.harness.producer(otherTopic);
  auto otherSink = std::make_shared<RecordingSink>();
  auto otherConsumer = f.harness.subscribe(otherTopic, "s", SubscriptionType::shared, otherSink);
  auto txn = f.harness.newTransaction();
  send(*f.producer, "here", txn);
  send(*otherProducer, "there", txn);
  ASSERT_TRUE(tryCommit(*txn).ok());
  EXPECT_EQ(f.sink->payloads(), Strings{"here"});
  EXPECT_EQ(otherSink->payloads(), Strings{"there"});
}

TEST(EmbeddedTransaction, TimesOutOnTheBrokersClock) {
  TxnFixture f;
  auto txn = f.harness.newTransaction(10s);
  send(*f.producer, "in the transaction", txn);
  send(*f.producer, "behind it");
  f.harness.clock->advance(10s - 1ms);
  EXPECT_EQ(f.sink->count(), 0u);
  send(*f.producer, "still open", txn);
  f.harness.clock->advance(1ms);  // aborted inside advance: what waited behind it goes now
  EXPECT_EQ(f.sink->payloads(), Strings{"behind it"});
  auto status = tryCommit(*txn);
  EXPECT_EQ(status.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(status.message, "(0,0)")) << status.message;
  EXPECT_TRUE(mentions(status.message, "timed out")) << status.message;
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);
}

TEST(EmbeddedTransaction, AnEndedTransactionCannotBeEndedAgain) {
  TxnFixture f;
  auto committed = f.harness.newTransaction();
  ASSERT_TRUE(tryCommit(*committed).ok());
  auto again = tryCommit(*committed);
  EXPECT_EQ(again.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(again.message, "cannot commit transaction (0,0)")) << again.message;
  EXPECT_TRUE(mentions(again.message, "it was committed")) << again.message;
  auto abortCommitted = tryAbort(*committed);
  EXPECT_EQ(abortCommitted.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(abortCommitted.message, "cannot abort transaction (0,0)"))
      << abortCommitted.message;

  auto aborted = f.harness.newTransaction();
  ASSERT_TRUE(tryAbort(*aborted).ok());
  auto commitAborted = tryCommit(*aborted);
  EXPECT_EQ(commitAborted.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(commitAborted.message, "(0,1)")) << commitAborted.message;
  EXPECT_TRUE(mentions(commitAborted.message, "it was aborted")) << commitAborted.message;
  EXPECT_EQ(tryAbort(*aborted).code, errc::transaction_not_found);
}

TEST(EmbeddedTransaction, PublishingInAnEndedTransactionIsRefused) {
  TxnFixture f;
  auto txn = f.harness.newTransaction();
  ASSERT_TRUE(tryCommit(*txn).ok());
  OutgoingMessage message;
  message.payload = "late";
  MessageId id;
  auto status = trySend(*f.producer, message, txn, id);
  EXPECT_EQ(status.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(status.message, "publish to topic " + f.topic)) << status.message;
  EXPECT_TRUE(mentions(status.message, "(0,0)")) << status.message;
  send(*f.producer, "plain");
  EXPECT_EQ(f.sink->payloads(), Strings{"plain"});  // nothing was stored for it
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);
}

TEST(EmbeddedTransaction, ADelayedMessageIsDeliveredOnceCommittedAndDue) {
  TxnFixture f;
  auto txn = f.harness.newTransaction(1h);
  OutgoingMessage message;
  message.payload = "delayed";
  message.deliverAfter = 1min;
  MessageId id;
  ASSERT_TRUE(trySend(*f.producer, message, txn, id).ok());
  f.harness.clock->advance(30s);
  ASSERT_TRUE(tryCommit(*txn).ok());
  EXPECT_EQ(f.sink->count(), 0u);  // committed, not due
  f.harness.clock->advance(30s - 1ms);
  EXPECT_EQ(f.sink->count(), 0u);
  f.harness.clock->advance(1ms);  // the delay counted from the publish
  EXPECT_EQ(f.sink->payloads(), Strings{"delayed"});

  auto late = f.harness.newTransaction(1h);
  ASSERT_TRUE(trySend(*f.producer, message, late, id).ok());
  f.harness.clock->advance(2min);
  EXPECT_EQ(f.sink->count(), 1u);  // due, not committed
  ASSERT_TRUE(tryCommit(*late).ok());
  EXPECT_EQ(f.sink->count(), 2u);
}

TEST(EmbeddedTransaction, ReadersSkipAbortedMessagesAndWaitForOpenOnes) {
  TxnFixture f;
  auto aborted = f.harness.newTransaction();
  send(*f.producer, "aborted", aborted);
  auto first = send(*f.producer, "first");
  ASSERT_TRUE(tryAbort(*aborted).ok());
  auto open = f.harness.newTransaction();
  send(*f.producer, "pending", open);
  send(*f.producer, "second");

  client::SubscribeSpec spec;
  spec.topic = f.topic;
  spec.subscription = "reader";
  spec.type = SubscriptionType::exclusive;
  spec.durable = false;
  spec.startMessageId = MessageId::earliest();
  auto readerSink = std::make_shared<RecordingSink>();
  auto reader = f.harness.subscribe(spec, readerSink);
  EXPECT_EQ(readerSink->payloads(), Strings{"first"});
  // The last dispatchable message: hasMessageAvailable must not promise one that cannot come.
  MessageId last;
  ASSERT_TRUE(callStatus([&](auto done) { reader->lastMessageId(done); }, last).ok());
  EXPECT_EQ(last, first);
  ASSERT_TRUE(tryCommit(*open).ok());
  EXPECT_EQ(readerSink->payloads(), (Strings{"first", "pending", "second"}));
}

TEST(EmbeddedTransaction, BacklogCountsOpenAndCommittedMessagesButNotAbortedOnes) {
  Harness harness;
  auto topic = topicName("t");
  ProducerOptions options;
  options.initialSubscription = "idle";  // a subscription without consumers
  auto producer = harness.producer(topic, options);
  auto committed = harness.newTransaction();
  auto aborted = harness.newTransaction();
  send(*producer, "c1", committed);
  send(*producer, "a1", aborted);
  send(*producer, "plain");
  send(*producer, "a2", aborted);
  EXPECT_EQ(harness.backlog(topic, "idle"), 4);  // stored, so counted, as on Pulsar
  ASSERT_TRUE(tryAbort(*aborted).ok());
  EXPECT_EQ(harness.backlog(topic, "idle"), 2);
  ASSERT_TRUE(tryCommit(*committed).ok());
  EXPECT_EQ(harness.backlog(topic, "idle"), 2);
  // A subscription created later, from the earliest message, does not count them either.
  auto sink = std::make_shared<RecordingSink>();
  auto late = harness.subscribe(topic, "late", SubscriptionType::shared, sink,
                                InitialPosition::earliest, /*receiverQueueSize=*/0);
  EXPECT_EQ(harness.backlog(topic, "late"), 2);
  late->flow(10);
  EXPECT_EQ(sink->payloads(), (Strings{"c1", "plain"}));
}

TEST(EmbeddedTransaction, ClosingTheClientThatOpenedItEndsNothing) {
  TxnFixture f;
  Harness other(f.harness.brokerName, "", f.harness.clock);
  auto txn = other.newTransaction(10s);
  send(*f.producer, "in it", txn);
  ASSERT_TRUE(callStatus([&](auto done) { other.backend->close(done); }).ok());
  EXPECT_EQ(f.sink->count(), 0u);  // neither committed nor aborted
  auto status = tryCommit(*txn);
  EXPECT_EQ(status.code, errc::closed);
  EXPECT_TRUE(mentions(status.message, "(0,0)")) << status.message;
  send(*f.producer, "behind it");
  EXPECT_EQ(f.sink->count(), 0u);
  f.harness.clock->advance(10s);  // the coordinator times it out
  EXPECT_EQ(f.sink->payloads(), Strings{"behind it"});
}

TEST(EmbeddedTransaction, RefusedTransactions) {
  TxnFixture f;
  std::shared_ptr<client::BackendTransaction> txn;
  EXPECT_EQ(f.harness.tryNewTransaction(0ms, txn).code, errc::invalid_argument);
  Harness elsewhere(f.harness.brokerName + "-elsewhere");
  auto foreign = elsewhere.newTransaction();
  OutgoingMessage message;
  message.payload = "m";
  MessageId id;
  auto status = trySend(*f.producer, message, foreign, id);
  EXPECT_EQ(status.code, errc::invalid_argument);
  EXPECT_TRUE(mentions(status.message, "(0,0)")) << status.message;
  EXPECT_EQ(trySend(*f.producer, message, nullptr, id).code, errc::invalid_argument);
  ASSERT_TRUE(callStatus([&](auto done) { f.harness.backend->close(done); }).ok());
  EXPECT_EQ(f.harness.tryNewTransaction(1min, txn).code, errc::closed);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
