// Pacing for replays: a token bucket as a pure calculation on time points (the generic cell rate
// algorithm: one "theoretical arrival time" instead of a token count, so that times stay exact
// integers and a ManualClock test can check each slot to the nanosecond), and a wait on a Clock.
//
// Thread safety: a TokenBucket belongs to one thread. waitUntil may be called from any thread.
#pragma once

#include <chrono>
#include <optional>

#include "reconsume/clock.hpp"

namespace reconsume::detail::dlq {

class TokenBucket {
 public:
  using time_point = std::chrono::system_clock::time_point;

  // `ratePerSecond` > 0 tokens come in per second; the bucket holds at most `burst` >= 1 (1: the
  // steadiest pace, one interval between any two). Throws Error(errc::invalid_argument) naming
  // the value otherwise.
  explicit TokenBucket(double ratePerSecond, int burst = 1);

  // Takes one token: the time it may be used, `now` or later. Each call takes the next token, so
  // a caller that comes back at the returned time and calls again keeps the rate exactly.
  time_point reserve(time_point now);

  std::chrono::nanoseconds interval() const { return interval_; }

 private:
  std::chrono::nanoseconds interval_;
  std::chrono::nanoseconds tolerance_;  // (burst - 1) intervals
  std::optional<time_point> theoreticalArrival_;
};

// Returns once `clock.now()` has reached `at`: at once when it has, otherwise when a timer
// scheduled on the clock for `at` runs (a ManualClock: when a test advances it that far).
void waitUntil(Clock& clock, Clock::time_point at);

}  // namespace reconsume::detail::dlq
