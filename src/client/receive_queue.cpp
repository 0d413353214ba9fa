#include "client/receive_queue.hpp"

namespace reconsume::detail::client {

void ReceiveQueue::push(Item item) {
  Waiter waiter;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    if (waiters_.empty()) {
      items_.push_back(std::move(item));
      available_.notify_one();
      return;
    }
    waiter = std::move(waiters_.front());
    waiters_.pop_front();
  }
  waiter({}, std::move(item));
}

void ReceiveQueue::drop(std::size_t slot) {
  std::lock_guard lock(mutex_);
  std::erase_if(items_, [slot](const Item& item) { return item.slot == slot; });
}

Status ReceiveQueue::pop(std::optional<std::chrono::steady_clock::time_point> deadline,
                         std::optional<Item>& out) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return !items_.empty() || closed_; };
  if (deadline) {
    if (!available_.wait_until(lock, *deadline, ready)) return {};
  } else {
    available_.wait(lock, ready);
  }
  if (!items_.empty()) {
    out = std::move(items_.front());
    items_.pop_front();
    return {};
  }
  return *closed_;
}

void ReceiveQueue::popAsync(Waiter waiter) {
  std::optional<Item> item;
  Status failure;
  {
    std::lock_guard lock(mutex_);
    if (!items_.empty()) {
      item = std::move(items_.front());
      items_.pop_front();
    } else if (closed_) {
      failure = *closed_;
    } else {
      waiters_.push_back(std::move(waiter));
      return;
    }
  }
  waiter(failure, item ? std::move(*item) : Item{});
}

void ReceiveQueue::close(const Status& why) {
  std::deque<Waiter> waiters;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = why;
    items_.clear();
    waiters.swap(waiters_);
  }
  available_.notify_all();
  for (auto& waiter : waiters) waiter(why, {});
}

std::size_t ReceiveQueue::size() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

}  // namespace reconsume::detail::client
