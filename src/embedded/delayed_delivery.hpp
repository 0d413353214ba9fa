// Delayed delivery for one subscription: the index of held messages by due time, and the single
// timer on the broker's clock that wakes the subscription when the earliest of them falls due
// (one timer per subscription, re-armed only when an earlier message arrives — not one per
// message).
//
// Thread safety: none; the owning Topic guards both with its mutex. The timer's function runs on
// the clock's thread and must take that mutex itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "reconsume/clock.hpp"

namespace reconsume::detail::embedded {

class DelayedIndex {
 public:
  void add(std::int64_t dueMs, std::int64_t entry) { heap_.emplace(dueMs, entry); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // Precondition: !empty().
  std::int64_t earliestDueMs() const { return heap_.top().first; }
  void clear() { heap_ = {}; }

  // Removes every entry due at or before `nowMs` and passes it to fn(entry), earliest first.
  template <typename Fn>
  void popDue(std::int64_t nowMs, Fn&& fn) {
    while (!heap_.empty() && heap_.top().first <= nowMs) {
      auto entry = heap_.top().second;
      heap_.pop();
      fn(entry);
    }
  }

 private:
  using Item = std::pair<std::int64_t, std::int64_t>;  // due (epoch ms), entry
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap_;
};

class DeliveryTimer {
 public:
  explicit DeliveryTimer(std::shared_ptr<Clock> clock) : clock_(std::move(clock)) {}
  ~DeliveryTimer() { cancel(); }
  DeliveryTimer(const DeliveryTimer&) = delete;
  DeliveryTimer& operator=(const DeliveryTimer&) = delete;

  // Makes sure a timer fires no later than `dueMs`. When none is armed, or the armed one is
  // later, arms `makeFn(generation)()` at dueMs in its place; the function must hand
  // `generation` to fired().
  template <typename MakeFn>
  void armBy(std::int64_t dueMs, MakeFn&& makeFn) {
    if (armedMs_ && *armedMs_ <= dueMs) return;
    if (armedMs_) clock_->cancel(id_);
    armedMs_ = dueMs;
    ++generation_;
    id_ =
        clock_->schedule(Clock::time_point(std::chrono::milliseconds(dueMs)), makeFn(generation_));
  }

  // Called by the timer's function: true when it is the armed timer (now spent), false for one
  // that was replaced or cancelled after it had started.
  bool fired(std::uint64_t generation) {
    if (generation != generation_ || !armedMs_) return false;
    armedMs_.reset();
    return true;
  }

  void cancel() {
    if (!armedMs_) return;
    clock_->cancel(id_);
    armedMs_.reset();
    ++generation_;
  }

 private:
  std::shared_ptr<Clock> clock_;
  std::optional<std::int64_t> armedMs_;
  Clock::TimerId id_{0};
  std::uint64_t generation_{0};
};

}  // namespace reconsume::detail::embedded
