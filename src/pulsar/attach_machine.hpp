// The life of a producer's or a consumer's attachment to the broker that owns its topic, as a
// sans-I/O state machine: each event goes in with the time, the next action comes out, and the
// driver (Attachment) does the I/O. Producers and consumers share it; what differs between them
// (the create request, what to do once attached) stays with them.
//
//   idle --start--> lookingUp --found--> creating --created--> attached
//                      |  failed            |  failed
//                      v                    v
//                   backingOff <------------+      (or failed: the first creation gives up;
//                      |                             ended: re-creating, the topic is gone)
//                      +--timer--> lookingUp
//   creating --closed by the broker--> remembered: the creation's success counts as a failure
//            (the broker closed the handle it is creating; it would serve nothing)
//   attached --session lost / closed by the broker--> backingOff
//   attached --hold (a seek in flight): closed by the broker is remembered, not acted on;
//            --released, succeeded--> backingOff (no wait; close the handle if the broker has not)
//            --released, failed after the broker closed it--> backingOff
//   attached --close--> closing --answered / session lost / closed by the broker--> closed
//   idle, lookingUp, creating, backingOff --close--> closed
//   any --shutdown--> closed
//
// Attempts are numbered: an answer for an attempt given up meanwhile (closed, timed out, the
// session lost) is stale; a stale "created" yields `discard`, so the broker does not keep a
// handle nobody uses. The first creation is bounded by the operation timeout and retries only
// failures that retrying may fix (RetryBudget); once attached, the handle retries for as long as
// it exists, except when the broker says the topic is gone.
//
// Thread safety: not synchronised; it lives on its owner's strand.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "common/status.hpp"
#include "pulsar/retry_budget.hpp"

namespace reconsume::detail::pulsar {

class AttachMachine {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  enum class State { idle, lookingUp, creating, backingOff, attached, closing, closed };

  struct Action {
    enum class Kind {
      none,         // nothing to do
      lookUp,       // look the topic up for `attempt`, within `timeout`
      create,       // ask the broker found to create the handle, for `attempt`
      discard,      // a stale attempt created the handle: close it on that broker
      attached,     // serve on the new session (`first`: the first time ever)
      retry,        // forget the session (closing the handle there first if `closeCurrent`),
                    // then wait `wait` and report timerFired
      closeRemote,  // closing while attached: close the handle on the broker (once drained)
      closed,       // closed for good; `status`: ok for a close, else why it ended so
      failed,       // the first creation gave up with `status`
      ended,        // re-creating failed for good (the topic is gone): `status`
    };
    Kind kind = Kind::none;
    std::uint64_t attempt = 0;
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds wait{0};
    bool closeCurrent = false;
    bool first = false;
    Status status;
  };

  AttachMachine(std::chrono::milliseconds operationTimeout, Backoff backoff)
      : operationTimeout_(operationTimeout), budget_(std::move(backoff)) {}

  State state() const { return state_; }
  bool attached() const { return state_ == State::attached; }
  bool everAttached() const { return everAttached_; }
  bool held() const { return held_; }
  // Whether the handle is gone for good (closed, failed or ended).
  bool finished() const { return state_ == State::closed; }

  Action start(TimePoint now);
  Action lookedUp(std::uint64_t attempt, const Status& status, TimePoint now);
  Action created(std::uint64_t attempt, const Status& status, TimePoint now);
  Action timerFired(TimePoint now);
  // The session the handle was attached on ended.
  Action sessionLost(const Status& why);
  // The broker closed the handle (CLOSE_PRODUCER, CLOSE_CONSUMER, TOPIC_MIGRATED).
  Action brokerClosed(const Status& why);
  // A seek is in flight (attached only): the broker's close that comes with it waits for it.
  void hold();
  // The seek finished: succeeded, or failed with `why`.
  Action released(bool succeeded, const Status& why);
  Action close();
  // The broker answered the close (or the request failed: closed either way).
  Action closeAnswered();
  Action shutdown(const Status& why);

 private:
  Action lookUp(TimePoint now);
  Action attemptFailed(const Status& status, TimePoint now);
  Action backOff(std::chrono::milliseconds wait, const Status& why, bool closeCurrent = false);
  Action finish(Action::Kind kind, const Status& status);

  std::chrono::milliseconds operationTimeout_;
  RetryBudget budget_;
  State state_ = State::idle;
  std::uint64_t attempt_ = 0;
  bool everAttached_ = false;
  bool held_ = false;
  bool closedWhileHeld_ = false;
  std::optional<Status> closedWhileCreating_;
};

}  // namespace reconsume::detail::pulsar
