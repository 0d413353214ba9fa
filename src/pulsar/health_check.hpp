// Keep-alive of one connection session, as a decision on time stamps: after `interval` with
// nothing read, send a PING; after twice that with still nothing read, the peer is gone and the
// session is dropped. Anything read (a PONG or any other frame) counts as a sign of life.
//
// Thread safety: not synchronised; the connection uses it from its strand only.
#pragma once

#include <chrono>

namespace reconsume::detail::pulsar {

class HealthCheck {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  enum class Action { none, ping, dead };

  explicit HealthCheck(std::chrono::milliseconds interval) : interval_(interval) {}

  // A session began (counts as a read).
  void start(TimePoint now) { onRead(now); }
  void onRead(TimePoint now) {
    lastRead_ = now;
    pinged_ = false;
  }

  // What to do at `now`: a PING at most once per silence, `dead` once it lasted 2 × interval.
  Action check(TimePoint now);
  // When check() may next have something to do.
  TimePoint nextCheck() const { return lastRead_ + (pinged_ ? 2 * interval_ : interval_); }
  std::chrono::milliseconds silence(TimePoint now) const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now - lastRead_);
  }
  std::chrono::milliseconds interval() const { return interval_; }

 private:
  std::chrono::milliseconds interval_;
  TimePoint lastRead_{};
  bool pinged_ = false;
};

inline HealthCheck::Action HealthCheck::check(TimePoint now) {
  auto silent = now - lastRead_;
  if (silent >= 2 * interval_) return Action::dead;
  if (silent >= interval_ && !pinged_) {
    pinged_ = true;
    return Action::ping;
  }
  return Action::none;
}

}  // namespace reconsume::detail::pulsar
