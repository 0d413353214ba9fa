// The transaction coordinators of the pulsar:// backend against a scripted broker: an END_TXN
// whose answer is lost is sent again after reconnecting, and a TransactionNotFound for the
// repeat makes the outcome unknown; TransactionCoordinatorNotFound is retried after a new lookup;
// a broker without transactions (no coordinators, or NotAllowedError) means errc::unsupported.
#include <gtest/gtest.h>

#include "pulsar_transaction_answers.hpp"

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;
using namespace pulsar_test::answers;
using namespace pulsar_test::txn_answers;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

const TxnId kCoordinatorTxn{0, 42};

void openCoordinatorTransaction(FakePeer& peer, const std::string& url) {
  peer.acceptConnect();
  answerCoordinators(peer, 1);
  connectCoordinator(peer, url, 0);
  answerNewTxn(peer, kCoordinatorTxn);
}

// The first END_TXN is read and its connection dropped before any answer; the coordinator
// connects again and sends it again, which `second` answers.
Status endWithLostAnswer(proto::TxnAction action, std::optional<proto::ServerError> second) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
                       openCoordinatorTransaction(peer, url);
                       expectEndTxn(peer, kCoordinatorTxn, action);  // and the connection breaks
                     },
                     [&](FakePeer& peer) {
                       peer.acceptConnect();
                       connectCoordinator(peer, url, 0);
                       answerEndTxn(peer, expectEndTxn(peer, kCoordinatorTxn, action), second);
                       peer.answerClosesUntilClosed();
                     }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  EXPECT_TRUE(status.ok()) << status.message;
  if (!txn) return status;
  StatusFuture ended;
  if (action == proto::COMMIT) {
    txn->commit(ended.callback());
  } else {
    txn->abort(ended.callback());
  }
  auto outcome = ended.get(20s);
  EXPECT_EQ(broker.accepted(), 2);
  return outcome;
}

TEST(PulsarTransactionCoordinator, ACommitWhoseAnswerWasLostIsSentAgainAfterReconnecting) {
  auto status = endWithLostAnswer(proto::COMMIT, std::nullopt);
  EXPECT_TRUE(status.ok()) << status.message;
}

TEST(PulsarTransactionCoordinator, ALostCommitAnswerThenTransactionNotFoundIsAnUnknownOutcome) {
  auto status = endWithLostAnswer(proto::COMMIT, proto::TransactionNotFound);
  EXPECT_EQ(status.code, make_error_code(errc::transaction_not_found)) << status.message;
  EXPECT_NE(status.message.find("the outcome of committing transaction (0,42) is unknown"),
            std::string::npos)
      << status.message;
  EXPECT_NE(status.message.find("answer to the first END_TXN(COMMIT) was lost"), std::string::npos)
      << status.message;
}

TEST(PulsarTransactionCoordinator, ALostAbortAnswerThenTransactionNotFoundIsAnAbort) {
  auto status = endWithLostAnswer(proto::ABORT, proto::TransactionNotFound);
  EXPECT_EQ(status.code, make_error_code(errc::transaction_not_found)) << status.message;
  EXPECT_NE(status.message.find("is aborted"), std::string::npos) << status.message;
}

TEST(PulsarTransactionCoordinator, TransactionNotFoundAtTheFirstCommitIsATimedOutTransaction) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    openCoordinatorTransaction(peer, url);
    answerEndTxn(peer, expectEndTxn(peer, kCoordinatorTxn, proto::COMMIT),
                 proto::TransactionNotFound);
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
  StatusFuture committed;
  txn->commit(committed.callback());
  auto outcome = committed.get();
  EXPECT_EQ(outcome.code, make_error_code(errc::transaction_not_found));
  EXPECT_EQ(outcome.message.find("unknown"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("TransactionNotFound"), std::string::npos) << outcome.message;
}

TEST(PulsarTransactionCoordinator, CoordinatorNotFoundIsRetriedAfterANewLookup) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerCoordinators(peer, 1);
    connectCoordinator(peer, url, 0);
    answerNewTxn(peer, {0, 0}, proto::TransactionCoordinatorNotFound);
    connectCoordinator(peer, url, 0);  // after a backoff
    answerNewTxn(peer, kCoordinatorTxn);
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
  EXPECT_EQ(txn->id(), kCoordinatorTxn);
}

TEST(PulsarTransactionCoordinator, CoordinatorNotFoundWhileConnectingIsRetriedToo) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerCoordinators(peer, 1);
    answerCoordinatorLookup(peer, url, 0);
    auto connect = peer.expect(proto::BaseCommand::TC_CLIENT_CONNECT_REQUEST);
    proto::BaseCommand answer;
    answer.set_type(proto::BaseCommand::TC_CLIENT_CONNECT_RESPONSE);
    answer.mutable_tcclientconnectresponse()->set_request_id(
        connect.command.tcclientconnectrequest().request_id());
    answer.mutable_tcclientconnectresponse()->set_error(proto::TransactionCoordinatorNotFound);
    peer.write(answer);
    connectCoordinator(peer, url, 0);
    answerNewTxn(peer, kCoordinatorTxn);
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
}

TEST(PulsarTransactionCoordinator, NotAllowedMeansTheBrokerDoesNotEnableTransactions) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerCoordinators(peer, 1);
    answerCoordinatorLookup(peer, url, 0);
    auto connect = peer.expect(proto::BaseCommand::TC_CLIENT_CONNECT_REQUEST);
    writeError(peer, connect.command.tcclientconnectrequest().request_id(), proto::NotAllowedError,
               "Transactions are not enabled.");
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  TestBackend backend(url);
  auto [status, txn] = backend.newTransaction();
  EXPECT_EQ(status.code, make_error_code(errc::unsupported)) << status.message;
  EXPECT_NE(status.message.find("transactionCoordinatorEnabled"), std::string::npos)
      << status.message;
  EXPECT_NE(status.message.find("Transactions are not enabled."), std::string::npos)
      << status.message;
  EXPECT_EQ(txn, nullptr);
}

TEST(PulsarTransactionCoordinator, NoCoordinatorsMeansTheBrokerDoesNotEnableTransactions) {
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerCoordinators(peer, 0);
    peer.answerClosesUntilClosed();
  }});
  TestBackend backend(broker.url());
  auto [status, txn] = backend.newTransaction();
  EXPECT_EQ(status.code, make_error_code(errc::unsupported)) << status.message;
  EXPECT_NE(status.message.find("transactionCoordinatorEnabled"), std::string::npos)
      << status.message;
}

TEST(PulsarTransactionCoordinator, ARequestNobodyAnswersTimesOutOnTheClock) {
  std::string url;
  std::promise<void> asked;
  FakeBroker broker({[&](FakePeer& peer) {
    openCoordinatorTransaction(peer, url);
    expectEndTxn(peer, kCoordinatorTxn, proto::COMMIT);  // never answered
    asked.set_value();
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  auto clock = std::make_shared<ManualSteadyClock>();
  TestBackend backend(url, clock);
  auto [status, txn] = backend.newTransaction();
  ASSERT_TRUE(status.ok()) << status.message;
  StatusFuture committed;
  txn->commit(committed.callback());
  ASSERT_EQ(asked.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(committed.future.wait_for(100ms), std::future_status::timeout);
  clock->advance(10s);  // the operation timeout
  auto outcome = committed.get();
  EXPECT_EQ(outcome.code, make_error_code(errc::timeout)) << outcome.message;
  EXPECT_NE(outcome.message.find("END_TXN(COMMIT) for transaction (0,42)"), std::string::npos)
      << outcome.message;
}

}  // namespace
}  // namespace reconsume::detail
