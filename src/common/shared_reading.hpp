// One reading of a clock's steady time, shared by the library code that a step runs at once.
//
// A retry ends in steps on the I/O thread, each timed for its metrics: the send's receipt is
// counted and at once starts the acknowledgement of the original; the acknowledgement's answer is
// counted and at once ends the move. Readings a few microseconds apart on one thread measure the
// same instant, and on a virtual machine each costs about 30 ns — eight per retry were 4% of its
// CPU (docs/PERFORMANCE.md, the eleventh round). While a SharedReading is alive, steadyNow(clock)
// on its thread returns the reading's time for that clock, and reads the clock for any other.
//
// A scope may also be opened without a reading, where many completions of one event run in a row
// and the clock they read is not known (the receipt of a batch of messages, the answer to a burst
// of acknowledgements): the first reading made inside it is then shared by the rest. Their event
// happened at one instant; the completions that run later in the row are timed as of that
// instant, not as of their own turn.
//
// Inside a scope runs the library's own code, and a MetricsSink told of a count; an application's
// callbacks are posted to the client's completions, never called inside one. A sink that takes
// its time in a row of completions makes those after it look as if they ended when the row's
// event came — when the broker's answer arrived, which is what the durations measure. Scopes
// nest; the innermost wins.
//
// Thread safety: each thread has its own scopes (thread_local).
#pragma once

#include "reconsume/clock.hpp"

namespace reconsume::detail {

namespace shared_reading {
struct Reading {
  const Clock* clock = nullptr;  // none: no reading yet, or no scope open
  Clock::steady_time_point at;
  bool open = false;  // a scope is open (one opened without a reading takes the first made in it)
};
}  // namespace shared_reading

class SharedReading {
 public:
  SharedReading(const Clock& clock, Clock::steady_time_point at) noexcept : outer_(current_) {
    current_ = {&clock, at, true};
  }
  // A scope whose reading is the first one made inside it.
  SharedReading() noexcept : outer_(current_) { current_ = {nullptr, {}, true}; }
  ~SharedReading() { current_ = outer_; }
  SharedReading(const SharedReading&) = delete;
  SharedReading& operator=(const SharedReading&) = delete;

  // The open scope's time when it belongs to `clock`, else a new reading of `clock` (kept by an
  // open scope that has none yet).
  static Clock::steady_time_point steadyNow(const Clock& clock) {
    if (current_.clock == &clock) return current_.at;
    const auto at = clock.steadyNow();
    if (current_.open && current_.clock == nullptr) {
      current_.clock = &clock;
      current_.at = at;
    }
    return at;
  }

 private:
  using Reading = shared_reading::Reading;
  static inline thread_local Reading current_;
  Reading outer_;
};

}  // namespace reconsume::detail
