// Transactions (transaction.hpp) and the transactional mode of reconsumeLater (SPEC.md section 1),
// on every backend: what is published in a transaction is invisible until it commits, what is
// acknowledged in it is pending until then, and an abort undoes both — also for a message of a
// batch entry whose siblings were acknowledged plainly.
#include <set>
#include <thread>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Transactions : public BehaviourTest {
 protected:
  ConsumerOptions plain(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "sub";
    options.initialPosition = InitialPosition::earliest;
    options.negativeAckRedeliveryDelay = 200ms;
    return options;
  }
};

TEST_P(Transactions, APublishIsInvisibleUntilTheCommit) {
  auto topic = uniqueTopic("txn-publish");
  auto consumer = client().subscribe(plain(topic));
  auto producer = client().createProducer(topic);
  auto txn = client().newTransaction();
  OutgoingMessage message;
  message.payload = "in a transaction";
  producer.send(message, txn);
  expectNothing(consumer);
  txn.commit();
  EXPECT_EQ(receiveNow(consumer).data(), "in a transaction");
}

TEST_P(Transactions, AnAbortDiscardsThePublishAndReleasesTheAcknowledgement) {
  auto topic = uniqueTopic("txn-abort");
  auto consumer = client().subscribe(plain(topic));
  auto producer = client().createProducer(topic);
  producer.send("input");
  auto input = receiveNow(consumer);

  auto txn = client().newTransaction();
  OutgoingMessage output;
  output.payload = "output";
  producer.send(output, txn);
  consumer.acknowledge(input, txn);
  txn.abort();
  // The acknowledgement is undone: the input comes back; the output never appears.
  auto again = receiveNow(consumer);
  EXPECT_EQ(again.data(), "input");
  EXPECT_EQ(again.id(), input.id());
  consumer.acknowledge(again);
  expectNothing(consumer);
}

TEST_P(Transactions, ACommittedAcknowledgementHoldsAndASecondOneConflicts) {
  auto topic = uniqueTopic("txn-ack");
  auto consumer = client().subscribe(plain(topic));
  client().createProducer(topic).send("once");
  auto message = receiveNow(consumer);
  auto first = client().newTransaction();
  consumer.acknowledge(message, first);
  auto second = client().newTransaction();
  try {
    consumer.acknowledge(message, second);
    FAIL() << "acknowledging a message pending in another transaction was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::transaction_conflict) << e.what();
  }
  first.commit();
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
  try {
    second.commit();
  } catch (const Error&) {
    // Pulsar aborts a transaction whose acknowledgement failed; either way nothing is acked twice.
  }
  consumer.close();
  auto again = client().subscribe(plain(topic));
  expectNothing(again);
}

TEST_P(Transactions, ACommitAfterTheTimeoutFindsTheTransactionGone) {
  auto topic = uniqueTopic("txn-timeout");
  auto consumer = client().subscribe(plain(topic));
  auto producer = client().createProducer(topic);
  TransactionOptions options;
  options.timeout = 1s;
  auto txn = client().newTransaction(options);
  OutgoingMessage message;
  message.payload = "too late";
  producer.send(message, txn);
  letPass(1100ms);
  try {
    if (!embedded()) std::this_thread::sleep_for(3s);  // the coordinator's timeout is real time
    txn.commit();
    FAIL() << "a commit after the timeout succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::transaction_not_found) << e.what();
  }
  expectNothing(consumer);
}

TEST_P(Transactions, TransactionalReconsumeMovesTheMessageInOneStep) {
  auto topic = uniqueTopic("txn-reconsume");
  auto options = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("100ms"), 1));
  options.transactionalRetry = true;
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("payment");
  auto message = receiveNow(consumer);
  auto due = now() + 100ms;
  consumer.reconsumeLater(message);
  auto retried = receiveAt(consumer, due);
  EXPECT_EQ(retried.data(), "payment");
  EXPECT_EQ(retried.property("RECONSUMETIMES"), "1");
  EXPECT_EQ(admin().backlog(topic, "sub"), 0) << "the original is acknowledged with the move";
  consumer.reconsumeLater(retried);  // past maxRetries: to the dead-letter topic
  auto dead = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].property("DEAD_LETTER_CAUSE"), "exhausted");
  expectNothing(consumer);
}

TEST_P(Transactions, ASecondDeliveryOfAMovedMessageCannotMakeASecondCopy) {
  auto topic = uniqueTopic("txn-twice");
  auto options = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1h"), 3));
  options.transactionalRetry = true;
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("once");
  auto message = receiveNow(consumer);
  consumer.reconsumeLater(message);
  try {
    consumer.reconsumeLater(message);  // as if the same message had been delivered twice
    FAIL() << "the second move of a moved message succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::transaction_conflict) << e.what();
  }
  EXPECT_EQ(readAll(*consumer.retryTopic()).size(), 1u);
}

// A message of a batch entry acknowledged in a transaction, its siblings acknowledged plainly
// after the entry came again (Pulsar's broker then reports the transaction's index acknowledged),
// and the transaction aborts: the message comes back (SPEC.md section 11) — with batch-index
// acknowledgement, whose ACKs carry only this consumer's own indexes, and without it, where the
// entry's last ACK is then not one of the whole entry. embedded:// has no batch entries, and the
// same holds there message by message.
TEST_P(Transactions, AnAbortBringsBackABatchedMessageWhoseSiblingsWereAcknowledgedAfterIt) {
  for (bool batchIndexAcknowledgement : {true, false}) {
    SCOPED_TRACE(batchIndexAcknowledgement ? "batch-index acknowledgement"
                                           : "entry acknowledgement");
    auto topic = uniqueTopic("txn-batch-index");
    auto options = plain(topic);
    options.batchIndexAcknowledgement = batchIndexAcknowledgement;
    options.acknowledgmentGroupTime = 0ms;
    auto consumer = client().subscribe(options);
    const auto ids = sendInOneEntry(topic, 3);
    std::vector<Message> received;
    for (int i = 0; i < 3; ++i) received.push_back(receiveNow(consumer));
    auto txn = client().newTransaction();
    consumer.acknowledge(received[1], txn);
    consumer.redeliverUnacknowledgedMessages();
    std::set<std::string> again;
    for (int i = 0; i < 2; ++i) {
      auto message = receiveNow(consumer);
      again.emplace(message.data());
      consumer.acknowledge(message);
    }
    EXPECT_EQ(again, (std::set<std::string>{"m0", "m2"})) << "m1 is pending in the transaction";
    txn.abort();
    auto back = receiveNow(consumer);
    EXPECT_EQ(back.data(), "m1");
    EXPECT_EQ(back.id(), ids[1]);
    consumer.acknowledge(back);
    expectNothing(consumer);
    EXPECT_EQ(admin().backlog(topic, "sub"), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Transactions, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
