// Retry policies: how long a failed message waits before it comes back, and how often it may.
// SPEC.md sections 1 (level table, exponential backoff, jitter) is the contract.
//
// Thread safety: DelayLevels, ExponentialBackoff and RetryPolicy are immutable values once built;
// share them freely. A RetryPolicy's random source is called from whichever thread routes a
// message, so a user-supplied source must be thread-safe (the default one is).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reconsume {

// A table of delays, one per retry level: "1s 5s 10s 30s 1m ... 2h".
class DelayLevels {
 public:
  // Whitespace-separated `<integer><unit>` tokens, unit one of ms s m h d. Zero, negative, a
  // missing or unknown unit, an overflow and an empty table are errors:
  // throws Error(errc::invalid_argument) naming the token and its 1-based position.
  static DelayLevels parse(std::string_view spec);
  // The 18 levels "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h".
  static DelayLevels defaultTable();
  // From durations directly; the same rules as parse (each > 0, not empty).
  static DelayLevels of(std::vector<std::chrono::milliseconds> delays);

  std::size_t size() const { return delays_.size(); }
  // The delay of `level`, 1-based; throws Error(errc::invalid_argument) outside [1, size()].
  std::chrono::milliseconds at(int level) const;
  const std::vector<std::chrono::milliseconds>& delays() const { return delays_; }
  // The table in parse()'s form, largest exact unit per entry ("1s 1m 90s 2h").
  std::string toString() const;

  friend bool operator==(const DelayLevels&, const DelayLevels&) = default;

 private:
  std::vector<std::chrono::milliseconds> delays_;
};

enum class Jitter { none, full, equal, decorrelated };

// delay(n) = min(max, min × multiplier^(n−1)), then jitter (SPEC.md §1).
struct ExponentialBackoff {
  std::chrono::milliseconds min{1000};
  std::chrono::milliseconds max{60000};
  double multiplier{2.0};
  Jitter jitter{Jitter::none};
};

// Uniform random numbers in [0, 1). Must be safe to call from several threads at once.
using RandomSource = std::function<double()>;

class RetryPolicy {
 public:
  // Level table; maxRetries defaults to table.size(). Throws Error(errc::invalid_argument) for
  // maxRetries < 1.
  static RetryPolicy levels(DelayLevels table, std::optional<int> maxRetries = {});
  // Exponential; throws Error(errc::invalid_argument) for min <= 0, max < min, multiplier <= 1,
  // maxRetries < 1, each naming the value.
  static RetryPolicy exponential(ExponentialBackoff backoff, int maxRetries = 16);
  // The application decides: `delay(n)` gives the delay of the n-th retry (n >= 1). A negative
  // result is reported as an invalid-argument error when a message is routed.
  using DelayFunction = std::function<std::chrono::milliseconds(int n)>;
  static RetryPolicy custom(DelayFunction delay, int maxRetries = 16);

  // The same policy drawing jitter from `source` (tests pass a fixed sequence).
  RetryPolicy withRandomSource(RandomSource source) const;
  // The same policy with a limit on the total time of retrying, counted from FIRST_FAILURE_TIME:
  // a retry whose delay would end after it goes to the dead-letter topic instead
  // (DEAD_LETTER_CAUSE=expired; SPEC.md section 1). Throws Error(errc::invalid_argument) for a
  // limit that is not positive.
  RetryPolicy withTimeLimit(std::chrono::milliseconds limit) const;
  // Set by withTimeLimit.
  std::optional<std::chrono::milliseconds> timeLimit() const;

  int maxRetries() const;
  // Set for level-table policies only.
  const DelayLevels* levelTable() const;
  // Set for exponential policies only.
  const ExponentialBackoff* exponentialBackoff() const;
  // "levels 1s 5s 10s (max 3 retries)", "exponential 1s..1m x2 jitter=full (max 16 retries)".
  std::string describe() const;

  struct State;  // the policy's data; opaque to users
  const State& state() const { return *state_; }

 private:
  explicit RetryPolicy(std::shared_ptr<const State> state);
  std::shared_ptr<const State> state_;
};

}  // namespace reconsume
