// Whether an attempt that failed is made again, and after how long — the one rule for every
// retrying in the network layer (creating producers and consumers, looking up partitions).
//
// Bounded (a caller is waiting for the outcome): only failures that trying again may fix
// (connection_lost, unavailable, the timeout of one request) are retried, and only while the next
// attempt can start before the deadline — except a broker the connection could not reach within
// the connection timeout (Status::retriesExhausted): the connection tried already. Unbounded (a
// producer or consumer that worked before and lost its session): every failure is retried after the
// next backoff step; the owner decides what ends it (the topic is gone, it is closed).
//
// Sans-I/O: the caller passes the time; nothing here waits.
// Thread safety: not synchronised; it lives on its owner's strand.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

#include "common/status.hpp"
#include "pulsar/backoff.hpp"

namespace reconsume::detail::pulsar {

inline bool retryableWhileTimeLeft(const Status& status) {
  if (status.retriesExhausted) return false;
  return status.code == errc::connection_lost || status.code == errc::unavailable ||
         status.code == errc::timeout;
}

class RetryBudget {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit RetryBudget(Backoff backoff) : backoff_(std::move(backoff)) {}

  void bound(TimePoint deadline) { deadline_ = deadline; }
  void unbound() { deadline_.reset(); }
  bool bounded() const { return deadline_.has_value(); }

  // How long the next attempt may take: until the deadline (at least 1 ms) when bounded,
  // `otherwise` when not.
  std::chrono::milliseconds left(TimePoint now, std::chrono::milliseconds otherwise) const {
    if (!deadline_) return otherwise;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - now);
    return std::max(left, std::chrono::milliseconds(1));
  }

  // The wait before trying again after `failure`, or nothing: give up.
  std::optional<std::chrono::milliseconds> next(const Status& failure, TimePoint now) {
    auto wait = backoff_.next();
    if (deadline_ && (!retryableWhileTimeLeft(failure) || now + wait >= *deadline_)) {
      return std::nullopt;
    }
    return wait;
  }

  // It worked: the next failure starts from the first backoff step again.
  void succeeded() { backoff_.reset(); }

 private:
  Backoff backoff_;
  std::optional<TimePoint> deadline_;
};

}  // namespace reconsume::detail::pulsar
