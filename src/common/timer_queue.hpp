// Timers ordered by due time, shared by SystemClock and ManualClock (one queue for wall-clock
// timers, one for monotonic ones; the clock hands out ids unique across both, in increasing
// order). Not thread-safe: the clocks guard it with their own mutex.
//
// The functions of the pending timers by id in an open-addressing map, their due times in a binary
// heap: adding and running a timer allocate nothing beyond the function's own captures (a
// std::multimap and a node-based index by id took two allocations per timer — one per delayed
// message an embedded subscription waits for). A cancelled timer's function is freed at once; its
// place in the heap is skipped when it comes to the top, and the heap is rebuilt when such places
// outnumber the pending timers (timers cancelled long before they fall due: an embedded broker's
// transaction timeouts).
#pragma once

#include <algorithm>
#include <boost/unordered/unordered_flat_map.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace reconsume::detail {

template <typename TimePoint>
class TimerQueue {
 public:
  using time_point = TimePoint;

  // Timers due at the same time run in the order they were added (ids increase).
  void add(std::uint64_t id, time_point at, std::function<void()> fn) {
    pending_.emplace(id, std::move(fn));
    heap_.push_back({at, id});
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }

  // False when no timer `id` is pending here (it ran, was cancelled, or is in the other queue).
  bool remove(std::uint64_t id) {
    if (pending_.erase(id) == 0) return false;
    if (heap_.size() > 2 * pending_.size() + kSlack) {
      std::erase_if(heap_, [this](const Due& due) { return !pending_.contains(due.id); });
      std::make_heap(heap_.begin(), heap_.end(), Later());
    }
    return true;
  }

  std::optional<time_point> earliest() const {
    dropCancelled();
    if (heap_.empty()) return std::nullopt;
    return heap_.front().at;
  }

  // Removes and returns the earliest timer if it is due at `now`.
  std::optional<std::pair<time_point, std::function<void()>>> popDue(time_point now) {
    dropCancelled();
    if (heap_.empty() || heap_.front().at > now) return std::nullopt;
    const Due due = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    heap_.pop_back();
    auto found = pending_.find(due.id);
    std::pair<time_point, std::function<void()>> out{due.at, std::move(found->second)};
    pending_.erase(found);
    return out;
  }

 private:
  static constexpr std::size_t kSlack = 16;  // cancelled places tolerated however few are pending

  struct Due {
    time_point at;
    std::uint64_t id;
  };
  // The heap's order: the top is the earliest, the first added among equal times.
  struct Later {
    bool operator()(const Due& a, const Due& b) const {
      return a.at != b.at ? a.at > b.at : a.id > b.id;
    }
  };

  // Places of cancelled timers at the top go, so that the top is always a pending timer.
  void dropCancelled() const {
    while (!heap_.empty() && !pending_.contains(heap_.front().id)) {
      std::pop_heap(heap_.begin(), heap_.end(), Later());
      heap_.pop_back();
    }
  }

  boost::unordered_flat_map<std::uint64_t, std::function<void()>> pending_;
  mutable std::vector<Due> heap_;
};

using WallTimers = TimerQueue<std::chrono::system_clock::time_point>;
using SteadyTimers = TimerQueue<std::chrono::steady_clock::time_point>;

}  // namespace reconsume::detail
