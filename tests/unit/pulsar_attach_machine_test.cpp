// The attachment's life, transition by transition, without sockets or timers: each event goes in
// with a time, the next action comes out.
#include <gtest/gtest.h>

#include "pulsar/attach_machine.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using Kind = AttachMachine::Action::Kind;
using State = AttachMachine::State;

const Status kLost(errc::connection_lost, "reset by peer");
const Status kClosedByBroker(errc::connection_lost, "the broker closed it");

class AttachMachineTest : public ::testing::Test {
 protected:
  // Backoff 10 ms doubling to 80 ms, no jitter; operation timeout 1 s.
  AttachMachine machine{1000ms, Backoff({10ms, 80ms, 0.0})};
  AttachMachine::TimePoint t0{std::chrono::hours(1)};

  // start → lookUp → create → attached, at t0.
  void attach() {
    auto lookUp = machine.start(t0);
    auto create = machine.lookedUp(lookUp.attempt, {}, t0);
    auto attached = machine.created(create.attempt, {}, t0);
    ASSERT_EQ(attached.kind, Kind::attached);
  }
};

TEST_F(AttachMachineTest, FirstCreationLooksUpCreatesAndAttaches) {
  auto lookUp = machine.start(t0);
  EXPECT_EQ(lookUp.kind, Kind::lookUp);
  EXPECT_EQ(lookUp.timeout, 1000ms);
  EXPECT_EQ(machine.state(), State::lookingUp);
  auto create = machine.lookedUp(lookUp.attempt, {}, t0 + 100ms);
  EXPECT_EQ(create.kind, Kind::create);
  EXPECT_EQ(create.attempt, lookUp.attempt);
  auto attached = machine.created(create.attempt, {}, t0 + 200ms);
  EXPECT_EQ(attached.kind, Kind::attached);
  EXPECT_TRUE(attached.first);
  EXPECT_TRUE(machine.attached());
  EXPECT_EQ(machine.start(t0).kind, Kind::none) << "starting twice does nothing";
}

TEST_F(AttachMachineTest, CreationRetriesARetryableFailureWithTheTimeLeft) {
  auto lookUp = machine.start(t0);
  auto retry = machine.lookedUp(lookUp.attempt, Status(errc::unavailable, "broker starting"), t0);
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_EQ(retry.wait, 10ms);
  EXPECT_EQ(machine.state(), State::backingOff);
  auto again = machine.timerFired(t0 + 400ms);
  EXPECT_EQ(again.kind, Kind::lookUp);
  EXPECT_EQ(again.timeout, 600ms) << "a lookup of the first creation gets the time left";
  auto create = machine.lookedUp(again.attempt, {}, t0 + 450ms);
  auto second = machine.created(create.attempt, kLost, t0 + 500ms);
  EXPECT_EQ(second.kind, Kind::retry);
  EXPECT_EQ(second.wait, 20ms) << "the backoff doubles";
}

TEST_F(AttachMachineTest, CreationGivesUpOnAFailureRetryingDoesNotFix) {
  auto lookUp = machine.start(t0);
  auto failed = machine.lookedUp(lookUp.attempt, Status(errc::authentication, "bad token"), t0);
  EXPECT_EQ(failed.kind, Kind::failed);
  EXPECT_EQ(failed.status.code, make_error_code(errc::authentication));
  EXPECT_TRUE(machine.finished());

  AttachMachine other{1000ms, Backoff({10ms, 80ms, 0.0})};
  auto create = other.lookedUp(other.start(t0).attempt, {}, t0);
  auto notFound = other.created(create.attempt, Status(errc::not_found, "no such topic"), t0);
  EXPECT_EQ(notFound.kind, Kind::failed) << "the first creation reports a missing topic";
}

TEST_F(AttachMachineTest, CreationGivesUpWhenTheNextStepEndsAfterTheOperationTimeout) {
  auto lookUp = machine.start(t0);
  auto failed = machine.lookedUp(lookUp.attempt, Status(errc::unavailable, "starting"), t0 + 995ms);
  EXPECT_EQ(failed.kind, Kind::failed);
  EXPECT_EQ(failed.status.message, "starting");
}

TEST_F(AttachMachineTest, ALostSessionBacksOffAndASuccessStartsTheBackoffOver) {
  attach();
  auto first = machine.sessionLost(kLost);
  EXPECT_EQ(first.kind, Kind::retry);
  EXPECT_EQ(first.wait, 10ms);
  EXPECT_FALSE(first.closeCurrent);
  auto lookUp = machine.timerFired(t0 + 10ms);
  EXPECT_EQ(lookUp.timeout, 1000ms) << "after the first creation, each lookup gets a whole timeout";
  auto retry = machine.lookedUp(lookUp.attempt, kLost, t0 + 20ms);
  EXPECT_EQ(retry.wait, 20ms);
  lookUp = machine.timerFired(t0 + 40ms);
  auto create = machine.lookedUp(lookUp.attempt, {}, t0 + 40ms);
  auto attached = machine.created(create.attempt, {}, t0 + 50ms);
  EXPECT_EQ(attached.kind, Kind::attached);
  EXPECT_FALSE(attached.first);
  EXPECT_EQ(machine.sessionLost(kLost).wait, 10ms);
}

TEST_F(AttachMachineTest, ReCreationRetriesForEverButEndsWhenTheTopicIsGone) {
  attach();
  machine.sessionLost(kLost);
  for (int i = 0; i < 20; ++i) {  // far past the operation timeout
    auto lookUp = machine.timerFired(t0 + std::chrono::seconds(i));
    ASSERT_EQ(lookUp.kind, Kind::lookUp);
    auto retry = machine.lookedUp(lookUp.attempt, Status(errc::authentication, "refused"),
                                  t0 + std::chrono::seconds(i));
    ASSERT_EQ(retry.kind, Kind::retry);
  }
  auto lookUp = machine.timerFired(t0 + 30s);
  auto create = machine.lookedUp(lookUp.attempt, {}, t0 + 30s);
  auto ended = machine.created(create.attempt, Status(errc::not_found, "topic deleted"), t0 + 30s);
  EXPECT_EQ(ended.kind, Kind::ended);
  EXPECT_EQ(ended.status.message, "topic deleted");
  EXPECT_TRUE(machine.finished());
}

TEST_F(AttachMachineTest, TheBrokerClosingTheHandleIsLikeALostSession) {
  attach();
  auto retry = machine.brokerClosed(kClosedByBroker);
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_EQ(retry.status.message, kClosedByBroker.message);
  EXPECT_EQ(machine.brokerClosed(kClosedByBroker).kind, Kind::none) << "not attached any more";
  EXPECT_EQ(machine.sessionLost(kLost).kind, Kind::none);
}

TEST_F(AttachMachineTest, ABrokerCloseWhileCreatingMakesTheCreationsSuccessAFailure) {
  attach();
  machine.sessionLost(kLost);
  auto lookUp = machine.timerFired(t0 + 10ms);
  auto create = machine.lookedUp(lookUp.attempt, {}, t0 + 10ms);
  EXPECT_EQ(machine.brokerClosed(kClosedByBroker).kind, Kind::none) << "nothing to act on yet";
  auto retry = machine.created(create.attempt, {}, t0 + 20ms);
  EXPECT_EQ(retry.kind, Kind::retry) << "the broker closed the handle it answered for";
  EXPECT_EQ(retry.wait, 20ms) << "a failure like any other: the backoff goes on";
  EXPECT_EQ(retry.status.message, kClosedByBroker.message + " as it was being created");

  lookUp = machine.timerFired(t0 + 40ms);
  create = machine.lookedUp(lookUp.attempt, {}, t0 + 40ms);
  auto attached = machine.created(create.attempt, {}, t0 + 50ms);
  EXPECT_EQ(attached.kind, Kind::attached) << "the close concerned the earlier attempt only";
}

TEST_F(AttachMachineTest, ABrokerCloseWhileFirstCreatingIsRetriedWithinTheTimeout) {
  auto create = machine.lookedUp(machine.start(t0).attempt, {}, t0);
  machine.brokerClosed(kClosedByBroker);
  auto retry = machine.created(create.attempt, {}, t0 + 100ms);
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_EQ(retry.wait, 10ms);
  auto lookUp = machine.timerFired(t0 + 110ms);
  EXPECT_EQ(lookUp.timeout, 890ms) << "still the first creation: the time left";
}

TEST_F(AttachMachineTest, CloseDuringLookupEndsAtOnceAndTheLateAnswerIsStale) {
  auto lookUp = machine.start(t0);
  auto closed = machine.close();
  EXPECT_EQ(closed.kind, Kind::closed);
  EXPECT_TRUE(closed.status.ok());
  EXPECT_EQ(machine.lookedUp(lookUp.attempt, {}, t0).kind, Kind::none);
  EXPECT_EQ(machine.close().kind, Kind::closed) << "closing again completes at once";
}

TEST_F(AttachMachineTest, CloseDuringCreateDiscardsWhatTheBrokerCreatedLate) {
  auto create = machine.lookedUp(machine.start(t0).attempt, {}, t0);
  EXPECT_EQ(machine.close().kind, Kind::closed);
  EXPECT_EQ(machine.created(create.attempt, {}, t0).kind, Kind::discard);
  EXPECT_EQ(machine.created(create.attempt, kLost, t0).kind, Kind::none)
      << "a late failure leaves nothing to discard";
}

TEST_F(AttachMachineTest, CloseWhileBackingOffEnds) {
  attach();
  machine.sessionLost(kLost);
  EXPECT_EQ(machine.close().kind, Kind::closed);
  EXPECT_EQ(machine.timerFired(t0 + 1s).kind, Kind::none);
}

TEST_F(AttachMachineTest, AnAnswerForAnOlderAttemptIsStale) {
  auto first = machine.start(t0);
  machine.lookedUp(first.attempt, kLost, t0);  // backs off
  auto second = machine.timerFired(t0 + 10ms);
  EXPECT_EQ(machine.lookedUp(first.attempt, {}, t0).kind, Kind::none);
  auto create = machine.lookedUp(second.attempt, {}, t0 + 20ms);
  EXPECT_EQ(create.kind, Kind::create);
  EXPECT_EQ(machine.created(first.attempt, {}, t0).kind, Kind::discard);
  EXPECT_EQ(machine.created(create.attempt, {}, t0 + 30ms).kind, Kind::attached);
}

TEST_F(AttachMachineTest, CloseWhileAttachedClosesOnTheBrokerFirst) {
  attach();
  EXPECT_EQ(machine.close().kind, Kind::closeRemote);
  EXPECT_EQ(machine.state(), State::closing);
  EXPECT_EQ(machine.close().kind, Kind::none) << "already closing";
  auto closed = machine.closeAnswered();
  EXPECT_EQ(closed.kind, Kind::closed);
  EXPECT_TRUE(closed.status.ok());
}

TEST_F(AttachMachineTest, ASessionLostOrABrokerCloseWhileClosingEndsTheClose) {
  attach();
  machine.close();
  auto lost = machine.sessionLost(kLost);
  EXPECT_EQ(lost.kind, Kind::closed);
  EXPECT_EQ(lost.status.message, kLost.message);

  AttachMachine other{1000ms, Backoff({10ms, 80ms, 0.0})};
  auto create = other.lookedUp(other.start(t0).attempt, {}, t0);
  other.created(create.attempt, {}, t0);
  other.close();
  EXPECT_EQ(other.brokerClosed(kClosedByBroker).kind, Kind::closed);
}

TEST_F(AttachMachineTest, ASeekSucceedingReattachesAtOnceAndClosesTheOldHandle) {
  attach();
  machine.hold();
  EXPECT_TRUE(machine.held());
  auto retry = machine.released(true, Status(errc::connection_lost, "seek"));
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_EQ(retry.wait, 0ms);
  EXPECT_TRUE(retry.closeCurrent) << "the broker had not closed it yet";
  EXPECT_FALSE(machine.held());
}

TEST_F(AttachMachineTest, TheBrokersCloseDuringASeekWaitsForTheSeeksAnswer) {
  attach();
  machine.hold();
  EXPECT_EQ(machine.brokerClosed(kClosedByBroker).kind, Kind::none);
  EXPECT_TRUE(machine.attached());
  auto retry = machine.released(true, Status(errc::connection_lost, "seek"));
  EXPECT_EQ(retry.wait, 0ms);
  EXPECT_FALSE(retry.closeCurrent) << "the broker closed it already";
}

TEST_F(AttachMachineTest, AFailedSeekReattachesOnlyWhenTheBrokerClosedTheHandle) {
  attach();
  machine.hold();
  EXPECT_EQ(machine.released(false, Status(errc::broker_error, "no")).kind, Kind::none);
  EXPECT_TRUE(machine.attached());
  machine.hold();
  machine.brokerClosed(kClosedByBroker);
  auto retry = machine.released(false, Status(errc::broker_error, "no"));
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_EQ(retry.wait, 10ms);
}

TEST_F(AttachMachineTest, ASessionLostDuringASeekReattachesAndTheSeeksAnswerChangesNothing) {
  attach();
  machine.hold();
  auto retry = machine.sessionLost(kLost);
  EXPECT_EQ(retry.kind, Kind::retry);
  EXPECT_FALSE(machine.held());
  EXPECT_EQ(machine.released(false, kLost).kind, Kind::none);
  EXPECT_EQ(machine.state(), State::backingOff);
}

TEST_F(AttachMachineTest, ShutdownEndsFromEveryStateOnce) {
  auto lookUp = machine.start(t0);
  auto ended = machine.shutdown(Status(errc::closed, "the client is closed"));
  EXPECT_EQ(ended.kind, Kind::closed);
  EXPECT_EQ(ended.status.message, "the client is closed");
  EXPECT_EQ(machine.shutdown(Status(errc::closed, "again")).kind, Kind::none);
  EXPECT_EQ(machine.lookedUp(lookUp.attempt, {}, t0).kind, Kind::none);

  AttachMachine idle{1000ms, Backoff({10ms, 80ms, 0.0})};
  EXPECT_EQ(idle.shutdown(Status(errc::closed, "x")).kind, Kind::closed);
  EXPECT_EQ(idle.start(t0).kind, Kind::none) << "a shut-down handle does not start";
}

}  // namespace
}  // namespace reconsume::detail::pulsar
