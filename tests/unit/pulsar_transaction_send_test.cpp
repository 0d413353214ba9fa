// Transactions of the pulsar:// backend against a scripted broker that checks the exact commands:
// the coordinators found and connected, NEW_TXN, the topic registered once per transaction before
// the first SEND, SENDs carrying the transaction in command and metadata, END_TXN; acknowledgements
// in a transaction; a failed operation turning a commit into an abort.
#include <gtest/gtest.h>

#include "protocol/batch_builder.hpp"
#include "protocol/frame_encoder.hpp"
#include "pulsar_transaction_answers.hpp"

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;
using namespace pulsar_test::answers;
using namespace pulsar_test::txn_answers;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

const TxnId kSendTxn{0, 7};

OutgoingMessage message(std::string payload) {
  OutgoingMessage out;
  out.payload = std::move(payload);
  return out;
}

// The start every script shares: the coordinators (one), coordinator 0 connected, NEW_TXN.
void openTransaction(FakePeer& peer, const std::string& url, TxnId txn = kSendTxn) {
  peer.acceptConnect();
  answerCoordinators(peer, 1);
  connectCoordinator(peer, url, 0);
  auto request = answerNewTxn(peer, txn);
  EXPECT_EQ(request.tc_id(), 0u);
  EXPECT_EQ(request.txn_ttl_seconds(), 45'000u) << "milliseconds, whatever the field's name";
}

TEST(PulsarTransactionSend, TheExactCommandsOfATransactionalSendAndCommit) {
  std::string url;
  std::promise<void> thirdSent;
  FakeBroker broker({[&](FakePeer& peer) {
    openTransaction(peer, url);
    answerLookup(peer, url);
    auto producer = answerProducer(peer);
    // Two sends made together: one registration, then both SENDs.
    auto added = answerAddPartition(peer);
    EXPECT_EQ(added.txnid_most_bits(), 0u);
    EXPECT_EQ(added.txnid_least_bits(), 7u);
    ASSERT_EQ(added.partitions_size(), 1);
    EXPECT_EQ(added.partitions(0), kScriptedTopic);
    for (std::uint64_t i = 0; i < 2; ++i) {
      auto send = peer.expect(proto::BaseCommand::SEND);
      EXPECT_EQ(send.payload, "m" + std::to_string(i));
      EXPECT_EQ(send.command.send().sequence_id(), i);
      EXPECT_EQ(send.command.send().txnid_most_bits(), 0u);
      EXPECT_EQ(send.command.send().txnid_least_bits(), 7u);
      ASSERT_TRUE(send.metadata);
      EXPECT_EQ(send.metadata->txnid_most_bits(), 0u);
      EXPECT_EQ(send.metadata->txnid_least_bits(), 7u);
      receipt(peer, producer.producer_id(), i, i);
    }
    // A later send of the same transaction to the same topic: no second registration.
    auto third = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(third.payload, "m2");
    EXPECT_EQ(third.metadata->txnid_least_bits(), 7u);
    receipt(peer, producer.producer_id(), 2, 2);
    // A send outside the transaction carries no transaction.
    auto plain = peer.expect(proto::BaseCommand::SEND);
    EXPECT_FALSE(plain.command.send().has_txnid_least_bits());
    EXPECT_FALSE(plain.metadata->has_txnid_least_bits());
    receipt(peer, producer.producer_id(), 3, 3);
    answerEndTxn(peer, expectEndTxn(peer, kSendTxn, proto::COMMIT));
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction(45s);
  ASSERT_TRUE(status.ok()) << status.message;
  EXPECT_EQ(txn->id(), kSendTxn);
  auto producer = backend.createProducer(kScriptedTopic);
  StatusFuture m0, m1, m2, plain, committed;
  producer->send(message("m0"), txn, m0.sendCallback());
  producer->send(message("m1"), txn, m1.sendCallback());
  EXPECT_TRUE(m0.get().ok());
  EXPECT_TRUE(m1.get().ok());
  producer->send(message("m2"), txn, m2.sendCallback());
  EXPECT_TRUE(m2.get().ok());
  producer->send(message("plain"), plain.sendCallback());
  EXPECT_TRUE(plain.get().ok());
  txn->commit(committed.callback());
  auto outcome = committed.get();
  EXPECT_TRUE(outcome.ok()) << outcome.message;
  StatusFuture again;
  txn->commit(again.callback());
  EXPECT_EQ(again.get().code, make_error_code(errc::transaction_not_found));
}

TEST(PulsarTransactionSend, NewTransactionsGoToTheCoordinatorsInTurn) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerCoordinators(peer, 2);
    connectCoordinator(peer, url, 0);
    EXPECT_EQ(answerNewTxn(peer, {0, 1}).tc_id(), 0u);
    connectCoordinator(peer, url, 1);
    EXPECT_EQ(answerNewTxn(peer, {1, 1}).tc_id(), 1u);
    EXPECT_EQ(answerNewTxn(peer, {0, 2}).tc_id(), 0u) << "connected already: no lookup";
    // Every later request of transaction (1,1) goes to coordinator 1: the script cannot tell
    // the coordinators' connections apart (one broker), but the END_TXN names the transaction.
    answerEndTxn(peer, expectEndTxn(peer, {1, 1}, proto::ABORT));
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto first = backend.newTransaction();
  auto second = backend.newTransaction();
  auto third = backend.newTransaction();
  ASSERT_TRUE(first.first.ok() && second.first.ok() && third.first.ok());
  EXPECT_EQ(second.second->id(), (TxnId{1, 1}));
  StatusFuture aborted;
  second.second->abort(aborted.callback());
  EXPECT_TRUE(aborted.get().ok());
}

TEST(PulsarTransactionSend, AFailedRegistrationFailsTheSendAndTurnsTheCommitIntoAnAbort) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    openTransaction(peer, url);
    answerLookup(peer, url);
    answerProducer(peer);
    answerAddPartition(peer, proto::TransactionNotFound);
    answerEndTxn(peer, expectEndTxn(peer, kSendTxn, proto::ABORT));
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
  auto producer = backend.createProducer(kScriptedTopic);
  StatusFuture sent, committed;
  producer->send(message("m0"), txn, sent.sendCallback());
  auto failure = sent.get();
  EXPECT_EQ(failure.code, make_error_code(errc::transaction_not_found)) << failure.message;
  txn->commit(committed.callback());
  auto outcome = committed.get();
  EXPECT_EQ(outcome.code, make_error_code(errc::transaction_not_found));
  EXPECT_NE(outcome.message.find("aborted instead of committed"), std::string::npos)
      << outcome.message;
}

// Answers whatever a client sends on a connection after a reconnection — lookups, PRODUCER,
// TC_CLIENT_CONNECT, SEND (a receipt) and END_TXN — recording the SENDs' payloads and the
// END_TXNs, until `enough` says so; the order of those requests is the client's business.
struct ReconnectedBroker {
  std::string url;
  std::vector<std::string> sent;
  std::vector<proto::CommandEndTxn> ended;

  void serve(FakePeer& peer, const std::function<bool()>& enough) {
    peer.acceptConnect();
    while (!enough()) {
      auto frame = peer.read();
      proto::BaseCommand answer;
      switch (frame.command.type()) {
        case proto::BaseCommand::LOOKUP:
          answer.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
          answer.mutable_lookuptopicresponse()->set_request_id(
              frame.command.lookuptopic().request_id());
          answer.mutable_lookuptopicresponse()->set_response(
              proto::CommandLookupTopicResponse::Connect);
          answer.mutable_lookuptopicresponse()->set_brokerserviceurl(url);
          break;
        case proto::BaseCommand::PRODUCER:
          answer.set_type(proto::BaseCommand::PRODUCER_SUCCESS);
          answer.mutable_producer_success()->set_request_id(frame.command.producer().request_id());
          answer.mutable_producer_success()->set_producer_name("standalone-0-7");
          answer.mutable_producer_success()->set_last_sequence_id(-1);
          break;
        case proto::BaseCommand::TC_CLIENT_CONNECT_REQUEST:
          answer.set_type(proto::BaseCommand::TC_CLIENT_CONNECT_RESPONSE);
          answer.mutable_tcclientconnectresponse()->set_request_id(
              frame.command.tcclientconnectrequest().request_id());
          break;
        case proto::BaseCommand::SEND:
          sent.push_back(frame.payload.toString());
          receipt(peer, frame.command.send().producer_id(), frame.command.send().sequence_id(),
                  sent.size());
          continue;
        case proto::BaseCommand::END_TXN:
          ended.push_back(frame.command.endtxn());
          answerEndTxn(peer, frame.command.endtxn());
          continue;
        case proto::BaseCommand::PING:
          answer = protocol::pong();
          break;
        default:
          continue;
      }
      peer.write(answer);
    }
    peer.answerClosesUntilClosed();
  }
};

// The broker may have stored a SEND of a transaction whose receipt the broken connection took
// with it; written again, it would be a second copy committing beside the first (the broker has
// no deduplication by default). So it fails at once, and the commit turns into an abort; a
// message outside the transaction is written again as usual.
TEST(PulsarTransactionSend, ASendInATransactionIsNotWrittenAgainAfterItsConnectionBroke) {
  ReconnectedBroker second;
  {
    std::promise<void> transactionalWritten;
    auto written = transactionalWritten.get_future();
    FakeBroker broker(
        {[&](FakePeer& peer) {
           openTransaction(peer, second.url);
           answerLookup(peer, second.url);
           answerProducer(peer);
           answerAddPartition(peer);
           EXPECT_EQ(peer.expect(proto::BaseCommand::SEND).payload, "in-txn");
           transactionalWritten.set_value();
           EXPECT_EQ(peer.expect(proto::BaseCommand::SEND).payload, "plain");
           // The connection breaks with neither confirmed.
         },
         [&](FakePeer& peer) { second.serve(peer, [&] { return !second.ended.empty(); }); }});
    second.url = broker.url();
    TestBackend backend(second.url);
    auto [status, txn] = backend.newTransaction();
    ASSERT_TRUE(status.ok()) << status.message;
    auto producer = backend.createProducer(kScriptedTopic);
    StatusFuture inTxn, plain, committed;
    producer->send(message("in-txn"), txn, inTxn.sendCallback());
    ASSERT_EQ(written.wait_for(10s), std::future_status::ready);
    producer->send(message("plain"), plain.sendCallback());

    auto lost = inTxn.get();
    EXPECT_EQ(lost.code, make_error_code(errc::connection_lost)) << lost.message;
    EXPECT_NE(lost.message.find("not written again"), std::string::npos) << lost.message;
    auto resent = plain.get();
    EXPECT_TRUE(resent.ok()) << resent.message;
    txn->commit(committed.callback());
    auto outcome = committed.get();
    EXPECT_EQ(outcome.code, make_error_code(errc::transaction_not_found)) << outcome.message;
    EXPECT_NE(outcome.message.find("aborted instead of committed"), std::string::npos)
        << outcome.message;
  }  // the client closes, then the broker's scripts end
  EXPECT_EQ(second.sent, std::vector<std::string>{"plain"}) << "written again: only the plain one";
  ASSERT_EQ(second.ended.size(), 1u);
  EXPECT_EQ(second.ended[0].txn_action(), proto::ABORT);
}

// A batch entry of three messages on consumer `consumerId`, at 12:4.
std::string batchFrame(std::uint64_t consumerId) {
  protocol::BatchBuilder builder;
  for (int i = 0; i < 3; ++i) builder.add(message("b" + std::to_string(i)), std::uint64_t(i));
  auto entry = builder.finish({.producerName = "java-1", .sequenceId = 0, .publishTimeMs = 5});
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(12);
  command.mutable_message()->mutable_message_id()->set_entryid(4);
  std::string out;
  protocol::appendPayloadFrame(out, command, entry.metadata, entry.payload);
  return out;
}

void answerAck(FakePeer& peer, const proto::CommandAck& ack,
               std::optional<proto::ServerError> error = {}) {
  proto::BaseCommand response;
  response.set_type(proto::BaseCommand::ACK_RESPONSE);
  response.mutable_ackresponse()->set_consumer_id(ack.consumer_id());
  response.mutable_ackresponse()->set_request_id(ack.request_id());
  response.mutable_ackresponse()->set_txnid_most_bits(ack.txnid_most_bits());
  response.mutable_ackresponse()->set_txnid_least_bits(ack.txnid_least_bits());
  if (error) response.mutable_ackresponse()->set_error(*error);
  peer.write(response);
}

TEST(PulsarTransactionSend, AcknowledgementsInATransaction) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    openTransaction(peer, url);
    answerLookup(peer, url);
    auto subscribe = acceptSubscribe(peer);
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(batchFrame(subscribe.consumer_id()));
    auto added = answerAddSubscription(peer);
    ASSERT_EQ(added.subscription_size(), 1);
    EXPECT_EQ(added.subscription(0).topic(), kScriptedTopic);
    EXPECT_EQ(added.subscription(0).subscription(), "txn-sub");
    EXPECT_EQ(added.txnid_least_bits(), 7u);
    // Message 1 of the batch: the entry with every index but 1 still unacknowledged.
    auto ack = peer.expect(proto::BaseCommand::ACK).command.ack();
    EXPECT_EQ(ack.ack_type(), proto::CommandAck::Individual);
    EXPECT_EQ(ack.txnid_most_bits(), 0u);
    EXPECT_EQ(ack.txnid_least_bits(), 7u);
    ASSERT_TRUE(ack.has_request_id());
    ASSERT_EQ(ack.message_id_size(), 1);
    EXPECT_EQ(ack.message_id(0).ledgerid(), 12u);
    EXPECT_EQ(ack.message_id(0).entryid(), 4u);
    ASSERT_EQ(ack.message_id(0).ack_set_size(), 1);
    EXPECT_EQ(ack.message_id(0).ack_set(0), 0b101);
    EXPECT_EQ(ack.message_id(0).batch_size(), 3);
    answerAck(peer, ack);
    // Message 2: no second registration; the broker says another transaction holds it.
    auto conflicting = peer.expect(proto::BaseCommand::ACK).command.ack();
    EXPECT_EQ(conflicting.message_id(0).ack_set(0), 0b011);
    answerAck(peer, conflicting, proto::TransactionConflict);
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
  auto sink = std::make_shared<QueueSink>();
  auto consumer = backend.subscribe(kScriptedTopic, "txn-sub", sink);
  std::vector<std::shared_ptr<MessageData>> messages;
  for (int i = 0; i < 3; ++i) {
    messages.push_back(sink->take());
    ASSERT_TRUE(messages.back());
  }
  StatusFuture first, second;
  consumer->acknowledge(*messages[1], txn, first.callback());
  auto outcome = first.get();
  EXPECT_TRUE(outcome.ok()) << outcome.message;
  consumer->acknowledge(*messages[2], txn, second.callback());
  auto conflict = second.get();
  EXPECT_EQ(conflict.code, make_error_code(errc::transaction_conflict)) << conflict.message;
}

}  // namespace
}  // namespace reconsume::detail
