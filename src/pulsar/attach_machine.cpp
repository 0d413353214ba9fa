#include "pulsar/attach_machine.hpp"

#include <utility>

namespace reconsume::detail::pulsar {

using Action = AttachMachine::Action;
using Kind = Action::Kind;

namespace {

Action act(Kind kind) {
  Action action;
  action.kind = kind;
  return action;
}

}  // namespace

AttachMachine::Action AttachMachine::start(TimePoint now) {
  if (state_ != State::idle) return {};
  budget_.bound(now + operationTimeout_);
  return lookUp(now);
}

AttachMachine::Action AttachMachine::lookUp(TimePoint now) {
  state_ = State::lookingUp;
  auto action = act(Kind::lookUp);
  action.attempt = ++attempt_;
  action.timeout = budget_.left(now, operationTimeout_);
  return action;
}

AttachMachine::Action AttachMachine::lookedUp(std::uint64_t attempt, const Status& status,
                                              TimePoint now) {
  if (attempt != attempt_ || state_ != State::lookingUp) return {};
  if (!status.ok()) return attemptFailed(status, now);
  state_ = State::creating;
  closedWhileCreating_.reset();
  auto action = act(Kind::create);
  action.attempt = attempt;
  return action;
}

AttachMachine::Action AttachMachine::created(std::uint64_t attempt, const Status& status,
                                             TimePoint now) {
  if (attempt != attempt_ || state_ != State::creating) {
    return status.ok() ? act(Kind::discard) : Action{};
  }
  if (!status.ok()) return attemptFailed(status, now);
  if (closedWhileCreating_) {
    // Pulsar answers success for a consumer it closed meanwhile (one that subscribed while a seek
    // still held the subscription's dispatcher closed): such a handle would never be served.
    return attemptFailed(*std::exchange(closedWhileCreating_, std::nullopt), now);
  }
  state_ = State::attached;
  budget_.succeeded();
  budget_.unbound();
  auto action = act(Kind::attached);
  action.first = !everAttached_;
  everAttached_ = true;
  return action;
}

AttachMachine::Action AttachMachine::attemptFailed(const Status& status, TimePoint now) {
  if (everAttached_ && status.code == errc::not_found) return finish(Kind::ended, status);
  auto wait = budget_.next(status, now);
  if (!wait) return finish(Kind::failed, status);
  return backOff(*wait, status);
}

AttachMachine::Action AttachMachine::backOff(std::chrono::milliseconds wait, const Status& why,
                                             bool closeCurrent) {
  state_ = State::backingOff;
  held_ = false;
  closedWhileHeld_ = false;
  auto action = act(Kind::retry);
  action.wait = wait;
  action.closeCurrent = closeCurrent;
  action.status = why;
  return action;
}

AttachMachine::Action AttachMachine::timerFired(TimePoint now) {
  if (state_ != State::backingOff) return {};
  return lookUp(now);
}

AttachMachine::Action AttachMachine::sessionLost(const Status& why) {
  if (state_ == State::attached) return backOff(budget_.next(why, {}).value(), why);
  if (state_ == State::closing) return finish(Kind::closed, why);
  return {};
}

AttachMachine::Action AttachMachine::brokerClosed(const Status& why) {
  if (state_ == State::closing) return finish(Kind::closed, why);
  if (state_ == State::creating) {
    closedWhileCreating_ = Status(why.code, why.message + " as it was being created");
    return {};
  }
  if (state_ != State::attached) return {};
  if (held_) {
    closedWhileHeld_ = true;  // the seek's answer decides where to start again
    return {};
  }
  return backOff(budget_.next(why, {}).value(), why);
}

void AttachMachine::hold() {
  if (state_ != State::attached) return;
  held_ = true;
  closedWhileHeld_ = false;
}

AttachMachine::Action AttachMachine::released(bool succeeded, const Status& why) {
  if (state_ != State::attached || !held_) return {};
  held_ = false;
  // After a seek the broker disconnects the subscription's consumers; the next attachment starts
  // at the new position, at once.
  if (succeeded) return backOff(std::chrono::milliseconds(0), why, !closedWhileHeld_);
  if (closedWhileHeld_) return backOff(budget_.next(why, {}).value(), why);
  return {};
}

AttachMachine::Action AttachMachine::close() {
  switch (state_) {
    case State::attached:
      state_ = State::closing;
      held_ = false;
      return act(Kind::closeRemote);
    case State::closing:
      return {};
    case State::closed:
      return act(Kind::closed);
    default:
      return finish(Kind::closed, {});
  }
}

AttachMachine::Action AttachMachine::closeAnswered() {
  if (state_ != State::closing) return {};
  return finish(Kind::closed, {});
}

AttachMachine::Action AttachMachine::shutdown(const Status& why) {
  if (state_ == State::closed) return {};
  return finish(Kind::closed, why);
}

AttachMachine::Action AttachMachine::finish(Kind kind, const Status& status) {
  state_ = State::closed;
  held_ = false;
  ++attempt_;  // answers still on their way are stale now
  auto action = act(kind);
  action.status = status;
  return action;
}

}  // namespace reconsume::detail::pulsar
