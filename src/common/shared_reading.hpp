// One reading of a clock's steady time, shared by the library code that a step runs at once.
//
// A retry ends in steps on the I/O thread, each timed for its metrics: the send's receipt is
// counted and at once starts the acknowledgement of the original; the acknowledgement's answer is
// counted and at once ends the move. Readings a few microseconds apart on one thread measure the
// same instant, and on a virtual machine each costs about 30 ns — eight per retry were 4% of its
// CPU (docs/PERFORMANCE.md, the eleventh round). While a SharedReading is alive, steadyNow(clock)
// on its thread returns the reading's time for that clock, and reads the clock for any other.
//
// Only the library's own code may run inside a scope: an application's callback is posted to the
// client's completions, never called inside one, so no wait of the application's makes a reading
// stale. Scopes nest; the innermost wins.
//
// Thread safety: each thread has its own scopes (thread_local).
#pragma once

#include "reconsume/clock.hpp"

namespace reconsume::detail {

namespace shared_reading {
struct Reading {
  const Clock* clock = nullptr;  // none: no scope is open
  Clock::steady_time_point at;
};
}  // namespace shared_reading

class SharedReading {
 public:
  SharedReading(const Clock& clock, Clock::steady_time_point at) noexcept : outer_(current_) {
    current_ = {&clock, at};
  }
  ~SharedReading() { current_ = outer_; }
  SharedReading(const SharedReading&) = delete;
  SharedReading& operator=(const SharedReading&) = delete;

  // The open scope's time when it belongs to `clock`, else a new reading of `clock`.
  static Clock::steady_time_point steadyNow(const Clock& clock) {
    if (current_.clock == &clock) return current_.at;
    return clock.steadyNow();
  }

 private:
  using Reading = shared_reading::Reading;
  static inline thread_local Reading current_;
  Reading outer_;
};

}  // namespace reconsume::detail
