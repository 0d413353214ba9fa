// Runs an async attempt again while it fails with a retryable error (connection_lost,
// unavailable, or a timeout of one request while the overall deadline is still ahead), with
// backoff between attempts, until it succeeds, fails for good, or the deadline passes. Lookups
// and the creation of producers and consumers use it, so an operation issued while the broker
// restarts waits for it (up to its timeout) instead of failing at once.
//
// Thread safety: one RetryUntil runs one operation; attempts and `done` run on `executor`.
#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>

#include "client/backend.hpp"
#include "pulsar/backoff.hpp"

namespace reconsume::detail::pulsar {

inline bool retryableWhileTimeLeft(const Status& status) {
  return status.code == errc::connection_lost || status.code == errc::unavailable ||
         status.code == errc::timeout;
}

template <typename T>
class RetryUntil : public std::enable_shared_from_this<RetryUntil<T>> {
 public:
  using Clock = std::chrono::steady_clock;
  // The attempt gets the time left and reports through its callback.
  using Attempt = std::function<void(std::chrono::milliseconds left, Callback<T> done)>;

  static void run(boost::asio::any_io_executor executor, Clock::time_point deadline,
                  BackoffOptions backoff, Attempt attempt, Callback<T> done,
                  std::function<bool()> cancelled = {}) {
    auto self = std::shared_ptr<RetryUntil>(new RetryUntil(
        executor, deadline, backoff, std::move(attempt), std::move(done), std::move(cancelled)));
    self->next();
  }

 private:
  RetryUntil(boost::asio::any_io_executor executor, Clock::time_point deadline,
             BackoffOptions backoff, Attempt attempt, Callback<T> done,
             std::function<bool()> cancelled)
      : timer_(executor),
        deadline_(deadline),
        backoff_(backoff),
        attempt_(std::move(attempt)),
        done_(std::move(done)),
        cancelled_(std::move(cancelled)) {}

  std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
  }

  void next() {
    attempt_(std::max(left(), std::chrono::milliseconds(1)),
             [self = this->shared_from_this()](const Status& status, T value) {
               self->finished(status, std::move(value));
             });
  }

  void finished(const Status& status, T value) {
    if (status.ok() || !retryableWhileTimeLeft(status) || (cancelled_ && cancelled_())) {
      return done_(status, std::move(value));
    }
    auto wait = backoff_.next();
    if (left() <= wait) return done_(status, std::move(value));
    timer_.expires_after(wait);
    timer_.async_wait([self = this->shared_from_this()](boost::system::error_code) {
      if (self->cancelled_ && self->cancelled_()) {
        return self->done_(Status(errc::closed, "the client is closed"), T{});
      }
      self->next();
    });
  }

  boost::asio::steady_timer timer_;
  Clock::time_point deadline_;
  Backoff backoff_;
  Attempt attempt_;
  Callback<T> done_;
  std::function<bool()> cancelled_;
};

}  // namespace reconsume::detail::pulsar
