// The embedded broker's fault controls (embedded/faults.hpp), each with its exact outcome: a lost
// acknowledgement answer, a lost commit answer, a refused commit. Reached by broker name, as the
// library's own tests reach them.
#include <gtest/gtest.h>

#include <algorithm>

#include "embedded_test_support.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

using ::reconsume::testing::mentions;

struct TxnFaultsFixture {
  Harness harness;
  std::string topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer = harness.producer(topic);
  std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();
  std::shared_ptr<client::BackendConsumer> consumer =
      harness.subscribe(topic, "s", SubscriptionType::shared, sink);

  const MessageData& received(std::size_t index) { return *sink->messages().at(index); }
};

TEST(EmbeddedFaults, TestsReachTheControlsByBrokerName) {
  Harness harness;
  auto broker = findBroker(harness.brokerName);
  ASSERT_NE(broker, nullptr);
  EXPECT_EQ(&broker->faults(), &harness.faults());
  EXPECT_EQ(findBroker(harness.brokerName + "-never-started"), nullptr);
  EXPECT_EQ(thrownBy([&] { harness.faults().refuseNextCommits(-1); }).code(),
            errc::invalid_argument);
}

TEST(EmbeddedFaults, ALostAcknowledgementAnswerStillAcknowledges) {
  TxnFaultsFixture f;
  auto id = send(*f.producer, "m");
  f.harness.faults().loseNextAcknowledgementAnswers(1);
  auto lost = tryAck(*f.consumer, f.received(0));
  EXPECT_EQ(lost.code, errc::connection_lost);
  EXPECT_TRUE(
      mentions(lost.message, "the answer to the acknowledgement of " + id.toString() + " was lost"))
      << lost.message;
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);         // applied
  EXPECT_TRUE(tryAck(*f.consumer, f.received(0)).ok());  // idempotent, and the fault is spent
  f.consumer->redeliver({id});
  EXPECT_EQ(f.sink->count(), 1u);
}

TEST(EmbeddedFaults, LostAcknowledgementAnswersAreCounted) {
  TxnFaultsFixture f;
  for (int i = 0; i < 3; ++i) send(*f.producer, std::to_string(i));
  f.harness.faults().loseNextAcknowledgementAnswers(2);
  EXPECT_EQ(tryAck(*f.consumer, f.received(0)).code, errc::connection_lost);
  EXPECT_EQ(tryAck(*f.consumer, f.received(1)).code, errc::connection_lost);
  EXPECT_TRUE(tryAck(*f.consumer, f.received(2)).ok());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
  f.harness.faults().loseNextAcknowledgementAnswers(5);
  f.harness.faults().clear();
  send(*f.producer, "3");
  EXPECT_TRUE(tryAck(*f.consumer, f.received(3)).ok());
}

TEST(EmbeddedFaults, ALostTransactionalAcknowledgementAnswerStillHoldsTheMessage) {
  TxnFaultsFixture f;
  auto id = send(*f.producer, "m");
  auto txn = f.harness.newTransaction();
  f.harness.faults().loseNextAcknowledgementAnswers(1);
  auto lost = tryAck(*f.consumer, f.received(0), txn);
  EXPECT_EQ(lost.code, errc::connection_lost);
  EXPECT_TRUE(
      mentions(lost.message, "the answer to the acknowledgement of " + id.toString() + " was lost"))
      << lost.message;
  EXPECT_TRUE(mentions(lost.message, "in transaction (0,0)")) << lost.message;
  f.consumer->redeliver({id});
  EXPECT_EQ(f.sink->count(), 1u);  // held by the transaction
  // Repeated in the same transaction, as Pulsar's pending-ack handle answers it: a conflict.
  auto again = tryAck(*f.consumer, f.received(0), txn);
  EXPECT_EQ(again.code, errc::transaction_conflict);
  EXPECT_TRUE(mentions(again.message, "is pending in transaction (0,0)")) << again.message;
  ASSERT_TRUE(tryCommit(*txn).ok());
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 0);
}

TEST(EmbeddedFaults, ALostCommitAnswerStillCommits) {
  TxnFaultsFixture f;
  send(*f.producer, "original");
  auto txn = f.harness.newTransaction();
  send(*f.producer, "published", txn);
  ack(*f.consumer, f.received(0), txn);
  f.harness.faults().loseNextCommitAnswers(1);
  auto lost = tryCommit(*txn);
  EXPECT_EQ(lost.code, errc::connection_lost);
  EXPECT_TRUE(mentions(lost.message, "the answer to the commit of (0,0) was lost")) << lost.message;
  EXPECT_EQ(f.sink->payloads(), (Strings{"original", "published"}));
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 1);  // "published", not yet acknowledged
  auto again = tryCommit(*txn);
  EXPECT_EQ(again.code, errc::transaction_not_found);
  EXPECT_TRUE(mentions(again.message, "(0,0)")) << again.message;
  EXPECT_EQ(tryAbort(*txn).code, errc::transaction_not_found);
  EXPECT_EQ(f.sink->count(), 2u);  // the abort changed nothing
}

TEST(EmbeddedFaults, ARefusedCommitAbortsTheTransaction) {
  TxnFaultsFixture f;
  send(*f.producer, "original");
  auto unrelated = f.harness.newTransaction();  // (0,0)
  auto txn = f.harness.newTransaction();        // (0,1)
  send(*f.producer, "published", txn);
  send(*f.producer, "plain");
  ack(*f.consumer, f.received(0), txn);
  f.harness.faults().refuseNextCommits(1);
  auto refused = tryCommit(*txn);
  EXPECT_EQ(refused.code, errc::broker_error);
  EXPECT_TRUE(mentions(refused.message, "the coordinator refused to commit (0,1)"))
      << refused.message;
  // Aborted: the publish is discarded, the acknowledgement released and redelivered.
  auto payloads = f.sink->payloads();
  std::sort(payloads.begin(), payloads.end());
  EXPECT_EQ(payloads, (Strings{"original", "original", "plain"}));
  for (const auto& message : f.sink->messages()) {
    if (message->payload == "original" && message != f.sink->messages()[0]) {
      EXPECT_EQ(message->redeliveryCount, 1);
    }
  }
  EXPECT_EQ(f.harness.backlog(f.topic, "s"), 2);
  EXPECT_EQ(tryCommit(*txn).code, errc::transaction_not_found);
  EXPECT_TRUE(tryCommit(*unrelated).ok());  // one refusal, spent
}

TEST(EmbeddedFaults, ARefusalWaitsForTheCommitOfAnOpenTransaction) {
  TxnFaultsFixture f;
  auto ended = f.harness.newTransaction();
  ASSERT_TRUE(tryCommit(*ended).ok());
  f.harness.faults().refuseNextCommits(1);
  EXPECT_EQ(tryCommit(*ended).code, errc::transaction_not_found);  // nothing to refuse
  auto open = f.harness.newTransaction();
  EXPECT_TRUE(tryAbort(*open).ok());  // aborts are never refused
  auto next = f.harness.newTransaction();
  EXPECT_EQ(tryCommit(*next).code, errc::broker_error);
}

TEST(EmbeddedFaults, ARefusedCommitWhoseAnswerIsLostReportsTheLoss) {
  TxnFaultsFixture f;
  auto txn = f.harness.newTransaction();
  send(*f.producer, "published", txn);
  f.harness.faults().refuseNextCommits(1);
  f.harness.faults().loseNextCommitAnswers(1);
  auto status = tryCommit(*txn);
  EXPECT_EQ(status.code, errc::connection_lost);
  EXPECT_TRUE(mentions(status.message, "refused")) << status.message;
  EXPECT_EQ(f.sink->count(), 0u);  // aborted all the same
  send(*f.producer, "plain");
  EXPECT_EQ(f.sink->payloads(), Strings{"plain"});
}

TEST(EmbeddedFaults, AcknowledgementsOfAClosedConsumerDoNotReachTheBroker) {
  TxnFaultsFixture f;
  send(*f.producer, "m");
  auto message = f.sink->messages()[0];
  ASSERT_TRUE(callStatus([&](auto done) { f.consumer->close(done); }).ok());
  f.harness.faults().loseNextAcknowledgementAnswers(1);
  EXPECT_EQ(tryAck(*f.consumer, *message).code, errc::closed);
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = f.harness.subscribe(f.topic, "s", SubscriptionType::shared, sink);
  ASSERT_EQ(sink->count(), 1u);
  EXPECT_EQ(tryAck(*consumer, *sink->messages()[0]).code, errc::connection_lost);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
