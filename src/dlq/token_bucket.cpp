#include "dlq/token_bucket.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {

TokenBucket::TokenBucket(double ratePerSecond, int burst) {
  // A rate below one per day is surely a typo; above a billion the interval would round to 0.
  if (!(ratePerSecond > 0) || !std::isfinite(ratePerSecond) || ratePerSecond > 1e9) {
    throw Error(errc::invalid_argument, "rate " + std::to_string(ratePerSecond) +
                                            " per second is invalid: it must be > 0 and <= 1e9");
  }
  if (burst < 1) {
    throw Error(errc::invalid_argument,
                "burst " + std::to_string(burst) + " is invalid: it must be at least 1");
  }
  interval_ = std::chrono::nanoseconds(std::llround(1e9 / ratePerSecond));
  tolerance_ = interval_ * (burst - 1);
}

TokenBucket::time_point TokenBucket::reserve(time_point now) {
  if (!theoreticalArrival_) theoreticalArrival_ = now;
  auto allowedFrom =
      std::chrono::time_point_cast<time_point::duration>(*theoreticalArrival_ - tolerance_);
  time_point at = std::max(now, allowedFrom);
  // Unused time does not pile up beyond the burst: the schedule restarts from `at`.
  theoreticalArrival_ = std::chrono::time_point_cast<time_point::duration>(
      std::max(*theoreticalArrival_, at) + interval_);
  return at;
}

void waitUntil(Clock& clock, Clock::time_point at) {
  if (clock.now() >= at) return;
  struct Signal {
    std::mutex mutex;
    std::condition_variable cv;
    bool fired = false;
  };
  auto signal = std::make_shared<Signal>();
  clock.schedule(at, [signal] {
    {
      std::lock_guard lock(signal->mutex);
      signal->fired = true;
    }
    signal->cv.notify_all();
  });
  std::unique_lock lock(signal->mutex);
  signal->cv.wait(lock, [&] { return signal->fired; });
}

}  // namespace reconsume::detail::dlq
