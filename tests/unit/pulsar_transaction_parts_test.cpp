// The sans-I/O parts of the pulsar:// backend's transactions: the registrations table, the
// coordinator's table of requests (attempts, lost answers, deadlines), what an END_TXN's outcome
// means, the coordinators taken in turn.
#include <gtest/gtest.h>

#include "protocol/transaction_commands.hpp"
#include "pulsar/coordinator_requests.hpp"
#include "pulsar/transaction_coordinators.hpp"
#include "pulsar/txn_registrations.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using TimePoint = CoordinatorRequests::TimePoint;
const TimePoint kPartsStart = TimePoint() + 1h;

TEST(PulsarTxnRegistrations, TheFirstSendsLaterOnesWaitForTheSameAnswer) {
  TxnRegistrations table;
  std::vector<std::string> calls;
  auto waiter = [&](std::string name) {
    return [&calls, name](const Status& status) {
      calls.push_back(name + (status.ok() ? ":ok" : ":failed"));
    };
  };
  EXPECT_EQ(table.begin("t", waiter("a")), TxnRegistrations::Begin::send);
  EXPECT_EQ(table.begin("t", waiter("b")), TxnRegistrations::Begin::wait);
  EXPECT_EQ(table.begin("u", waiter("c")), TxnRegistrations::Begin::send) << "another topic";
  EXPECT_FALSE(table.registered("t"));
  for (auto& run : table.finish("t", {})) run({});
  EXPECT_EQ(calls, (std::vector<std::string>{"a:ok", "b:ok"}));
  EXPECT_TRUE(table.answered("t").empty());
  EXPECT_TRUE(table.registered("t"));
  EXPECT_EQ(table.begin("t", waiter("d")), TxnRegistrations::Begin::registered);
  EXPECT_TRUE(table.finish("t", {}).empty()) << "a stale answer changes nothing";
  EXPECT_EQ(table.registeredCount(), 1u);
}

// An operation that comes while a successful answer's waiters run waits behind them: a send made
// as the answer arrives is not written before the sends that waited for it.
TEST(PulsarTxnRegistrations, OneThatComesWhileTheAnswersWaitersRunWaitsItsTurn) {
  TxnRegistrations table;
  std::vector<std::string> calls;
  auto waiter = [&](std::string name) {
    return [&calls, name](const Status&) { calls.push_back(name); };
  };
  EXPECT_EQ(table.begin("t", waiter("m0")), TxnRegistrations::Begin::send);
  auto first = table.finish("t", {});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(table.begin("t", waiter("m1")), TxnRegistrations::Begin::wait)
      << "the answer came, but m0 has not run yet";
  EXPECT_FALSE(table.registered("t"));
  EXPECT_TRUE(table.finish("t", {}).empty()) << "a stale answer changes nothing";
  for (auto& run : first) run({});
  for (auto& run : table.answered("t")) run({});
  EXPECT_EQ(calls, (std::vector<std::string>{"m0", "m1"}));
  EXPECT_TRUE(table.answered("t").empty());
  EXPECT_TRUE(table.registered("t"));
  EXPECT_EQ(table.begin("t", waiter("m2")), TxnRegistrations::Begin::registered);
}

TEST(PulsarTxnRegistrations, AFailedRegistrationIsForgottenSoTheNextOneAsksAgain) {
  TxnRegistrations table;
  EXPECT_EQ(table.begin("t", [](const Status&) {}), TxnRegistrations::Begin::send);
  EXPECT_EQ(table.finish("t", Status(errc::timeout, "no answer")).size(), 1u);
  EXPECT_FALSE(table.registered("t"));
  EXPECT_EQ(table.begin("t", [](const Status&) {}), TxnRegistrations::Begin::send);
}

CoordinatorRequests::Build endTxn() {
  return [](std::uint64_t requestId) {
    return protocol::endTxn({0, 42}, requestId, proto::COMMIT);
  };
}

TEST(PulsarCoordinatorRequests, RequestsWaitUntilConnectedThenGoOutOnce) {
  CoordinatorRequests table;
  auto a = table.add(
      "A", endTxn(), [](const auto&) {}, kPartsStart + 10s);
  auto b = table.add(
      "B", endTxn(), [](const auto&) {}, kPartsStart + 5s);
  EXPECT_TRUE(table.anyWaiting());
  EXPECT_EQ(table.startWaiting(1), (std::vector<std::uint64_t>{a, b})) << "oldest first";
  EXPECT_FALSE(table.anyWaiting());
  EXPECT_TRUE(table.startWaiting(1).empty()) << "in flight: not written twice";
  EXPECT_EQ(table.find(a)->inFlightOn, 1u);
  EXPECT_EQ(table.find(a)->attempts, 1);
  EXPECT_EQ(table.nextDeadline(), kPartsStart + 5s);
  EXPECT_EQ(table.find(a)->build(9).endtxn().request_id(), 9u) << "each attempt its request id";
}

TEST(PulsarCoordinatorRequests, ALostAnswerIsRememberedAcrossAttempts) {
  CoordinatorRequests table;
  auto id = table.add(
      "END_TXN", endTxn(), [](const auto&) {}, kPartsStart + 10s);
  table.startWaiting(1);
  table.answerLost(id, "the connection broke");
  EXPECT_TRUE(table.anyWaiting());
  EXPECT_EQ(table.startWaiting(2), (std::vector<std::uint64_t>{id}));
  table.notServed(id);  // the second attempt did nothing: the first loss still counts
  table.startWaiting(3);
  auto request = table.take(id);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->attempts, 3);
  EXPECT_EQ(request->lostAnswer, "the connection broke");
  EXPECT_FALSE(table.take(id)) << "a request leaves once";
}

TEST(PulsarCoordinatorRequests, RequestsExpireAtTheirDeadlineInFlightOrNot) {
  CoordinatorRequests table;
  auto early = table.add(
      "early", endTxn(), [](const auto&) {}, kPartsStart + 1s);
  table.add(
      "late", endTxn(), [](const auto&) {}, kPartsStart + 9s);
  EXPECT_TRUE(table.start(early, 4));
  EXPECT_FALSE(table.start(early, 4)) << "already in flight";
  EXPECT_TRUE(table.expire(kPartsStart).empty());
  auto expired = table.expire(kPartsStart + 1s);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].what, "early");
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.takeAll().size(), 1u);
  EXPECT_TRUE(table.empty());
  EXPECT_FALSE(table.nextDeadline());
}

CoordinatorRequests::Outcome notFound(std::optional<std::string> lost) {
  return {Status(errc::transaction_not_found,
                 "END_TXN request 9 for transaction (0,42): broker error TransactionNotFound"),
          std::nullopt, std::move(lost)};
}

TEST(PulsarEndTxnStatus, TransactionNotFoundAfterALostCommitAnswerIsAnUnknownOutcome) {
  auto status = endTxnStatus(proto::COMMIT, {0, 42}, notFound("the connection to x was lost"));
  EXPECT_EQ(status.code, make_error_code(errc::transaction_not_found));
  EXPECT_NE(status.message.find("the outcome of committing transaction (0,42) is unknown"),
            std::string::npos)
      << status.message;
  EXPECT_NE(status.message.find("(the connection to x was lost)"), std::string::npos);
  EXPECT_NE(status.message.find("committed or aborted by its timeout"), std::string::npos);
}

TEST(PulsarEndTxnStatus, AfterALostAbortAnswerTheTransactionIsAbortedEitherWay) {
  auto status = endTxnStatus(proto::ABORT, {0, 42}, notFound("lost"));
  EXPECT_EQ(status.code, make_error_code(errc::transaction_not_found));
  EXPECT_NE(status.message.find("transaction (0,42) is aborted"), std::string::npos);
}

TEST(PulsarEndTxnStatus, EverythingElsePassesThrough) {
  auto plain = notFound(std::nullopt);
  EXPECT_EQ(endTxnStatus(proto::COMMIT, {0, 42}, plain).message, plain.status.message);
  CoordinatorRequests::Outcome ok{{}, std::nullopt, "lost"};
  EXPECT_TRUE(endTxnStatus(proto::COMMIT, {0, 42}, ok).ok()) << "the repeat did commit";
  CoordinatorRequests::Outcome conflict{Status(errc::transaction_conflict, "x"), {}, "lost"};
  EXPECT_EQ(endTxnStatus(proto::COMMIT, {0, 42}, conflict).code,
            make_error_code(errc::transaction_conflict));
}

// The first END_TXN(COMMIT)'s answer was lost and the one sent again finds the transaction
// committed (Pulsar 4.0.8 answered so in a fault run): the commit succeeded.
TEST(PulsarEndTxnStatus, ARefusalSayingTheTransactionEndedAsAskedIsSuccess) {
  CoordinatorRequests::Outcome committed{
      Status(errc::transaction_not_found,
             "END_TXN request 9 for transaction (0,42): broker error InvalidTxnStatus: Expect Txn "
             "`(0,42)` to be in COMMITTING status but it is in COMMITTED status"),
      std::nullopt, "lost", proto::COMMIT};
  EXPECT_TRUE(endTxnStatus(proto::COMMIT, {0, 42}, committed).ok());
  committed.lostAnswer.reset();  // the answer of an earlier commit() was lost
  EXPECT_TRUE(endTxnStatus(proto::COMMIT, {0, 42}, committed).ok());

  auto abort = endTxnStatus(proto::ABORT, {0, 42}, committed);
  EXPECT_EQ(abort.code, make_error_code(errc::transaction_not_found));
  EXPECT_NE(abort.message.find("transaction (0,42) is committed already, so it cannot be aborted"),
            std::string::npos)
      << abort.message;

  CoordinatorRequests::Outcome aborted{Status(errc::transaction_not_found, "x"), std::nullopt,
                                       std::nullopt, proto::ABORT};
  EXPECT_TRUE(endTxnStatus(proto::ABORT, {0, 42}, aborted).ok());
  auto commit = endTxnStatus(proto::COMMIT, {0, 42}, aborted);
  EXPECT_EQ(commit.code, make_error_code(errc::transaction_not_found));
  EXPECT_NE(commit.message.find("is aborted already, so it cannot be committed (x)"),
            std::string::npos)
      << commit.message;
}

TEST(PulsarServerErrorIn, ReadsErrorsFromPlainErrorsAndTransactionAnswers) {
  proto::BaseCommand error;
  error.set_type(proto::BaseCommand::ERROR);
  error.mutable_error()->set_error(proto::NotAllowedError);
  EXPECT_EQ(serverErrorIn(error), proto::NotAllowedError);
  proto::BaseCommand newTxn;
  newTxn.set_type(proto::BaseCommand::NEW_TXN_RESPONSE);
  newTxn.mutable_newtxnresponse()->set_request_id(1);
  EXPECT_FALSE(serverErrorIn(newTxn));
  newTxn.mutable_newtxnresponse()->set_error(proto::TransactionCoordinatorNotFound);
  EXPECT_EQ(serverErrorIn(newTxn), proto::TransactionCoordinatorNotFound);
}

TEST(PulsarTransactionCoordinators, NewTransactionsTakeTheCoordinatorsInTurn) {
  std::vector<std::uint64_t> chosen;
  for (std::uint64_t n = 0; n < 5; ++n) chosen.push_back(TransactionCoordinators::roundRobin(n, 3));
  EXPECT_EQ(chosen, (std::vector<std::uint64_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(protocol::coordinatorForTxn({2, 99}), 2u) << "later requests: the opener";
}

}  // namespace
}  // namespace reconsume::detail::pulsar
