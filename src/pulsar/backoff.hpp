// Reconnection delays: start small, double after each failure up to a ceiling, and shave a random
// part off each delay so that many clients cut off by the same broker restart do not all come
// back in the same millisecond.
//
// Thread safety: not synchronised; each connection or handler owns its own Backoff.
#pragma once

#include <chrono>
#include <functional>

namespace reconsume::detail::pulsar {

struct BackoffOptions {
  std::chrono::milliseconds initial{100};
  std::chrono::milliseconds max{30'000};
  double jitter{0.2};  // each delay is cut by up to this share of it
};

class Backoff {
 public:
  using Options = BackoffOptions;
  using Random = std::function<double()>;  // uniform in [0, 1)

  // `random` null: a per-thread std::mt19937_64.
  explicit Backoff(Options options = {}, Random random = {});

  // The delay before the next attempt: initial × 2^failures, capped at max, minus the jitter.
  std::chrono::milliseconds next();
  // After a success: the next failure starts from `initial` again.
  void reset() { failures_ = 0; }
  int failures() const { return failures_; }

 private:
  Options options_;
  Random random_;
  int failures_ = 0;
};

}  // namespace reconsume::detail::pulsar
