// Timers ordered by due time, shared by SystemClock and ManualClock. Not thread-safe: the clocks
// guard it with their own mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

namespace reconsume::detail {

class TimerQueue {
 public:
  using time_point = std::chrono::system_clock::time_point;

  std::uint64_t add(time_point at, std::function<void()> fn) {
    auto id = ++lastId_;
    auto it = byTime_.emplace(at, Entry{id, std::move(fn)});
    byId_.emplace(id, it);
    return id;
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
  std::unordered_map<std::uint64_t, std::multimap<time_point, Entry>::iterator> byId_;
  std::uint64_t lastId_ = 0;
};

}  // namespace reconsume::detail
