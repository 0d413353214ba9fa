// Timers ordered by due time, shared by SystemClock and ManualClock (one queue for wall-clock
// timers, one for monotonic ones; the clock hands out ids unique across both). Not thread-safe:
// the clocks guard it with their own mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

namespace reconsume::detail {

template <typename TimePoint>
class TimerQueue {
 public:
  using time_point = TimePoint;

  void add(std::uint64_t id, time_point at, std::function<void()> fn) {
    auto it = byTime_.emplace(at, Entry{id, std::move(fn)});
    byId_.emplace(id, it);
  }

  bool remove(std::uint64_t id) {
    auto found = byId_.find(id);
    if (found == byId_.end()) return false;
    byTime_.erase(found->second);
    byId_.erase(found);
    return true;
  }

  std::optional<time_point> earliest() const {
    if (byTime_.empty()) return std::nullopt;
    return byTime_.begin()->first;
  }

  // Removes and returns the earliest timer if it is due at `now`.
  std::optional<std::pair<time_point, std::function<void()>>> popDue(time_point now) {
    if (byTime_.empty() || byTime_.begin()->first > now) return std::nullopt;
    auto it = byTime_.begin();
    std::pair<time_point, std::function<void()>> due{it->first, std::move(it->second.fn)};
    byId_.erase(it->second.id);
    byTime_.erase(it);
    return due;
  }

 private:
  struct Entry {
    std::uint64_t id;
    std::function<void()> fn;
  };
  std::multimap<time_point, Entry> byTime_;
  std::unordered_map<std::uint64_t, typename std::multimap<time_point, Entry>::iterator> byId_;
};

using WallTimers = TimerQueue<std::chrono::system_clock::time_point>;
using SteadyTimers = TimerQueue<std::chrono::steady_clock::time_point>;

}  // namespace reconsume::detail
