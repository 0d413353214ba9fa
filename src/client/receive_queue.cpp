#include "client/receive_queue.hpp"

#include <algorithm>

namespace reconsume::detail::client {

namespace {

std::uint64_t& epochOf(std::vector<std::uint64_t>& epochs, std::size_t slot) {
  if (epochs.size() <= slot) epochs.resize(slot + 1, 0);
  return epochs[slot];
}

}  // namespace

// The blocked receiver is woken after the lock is let go: woken under it, it would wait for the
// lock straight away (one more sleep and wake-up per message received while it waits).
void ReceiveQueue::push(Item item) {
  Waiter waiter;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    item.epoch = epochOf(epochs_, item.slot);
    if (waiters_.empty()) {
      makeRoom();
      items_.push_back(std::move(item));
    } else {
      waiter = std::move(waiters_.front().second);
      waiters_.pop_front();
    }
  }
  if (!waiter) return available_.notify_one();
  waiter({}, std::move(item));
}

void ReceiveQueue::pushAll(std::size_t slot, std::vector<std::shared_ptr<MessageData>>& messages) {
  std::vector<std::pair<Waiter, Item>> handed;  // async receivers: run once the lock is let go
  std::size_t queued = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    const auto epoch = epochOf(epochs_, slot);
    makeRoom(messages.size());  // once for all (waiters may take some)
    for (auto& message : messages) {
      Item item{std::move(message), slot, epoch};
      if (waiters_.empty()) {
        items_.push_back(std::move(item));
        ++queued;
      } else {
        handed.emplace_back(std::move(waiters_.front().second), std::move(item));
        waiters_.pop_front();
      }
    }
  }
  if (queued == 1) available_.notify_one();
  if (queued > 1) available_.notify_all();
  for (auto& [waiter, item] : handed) waiter({}, std::move(item));
}

void ReceiveQueue::giveBack(Item item) {
  Waiter waiter;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || item.epoch != epochOf(epochs_, item.slot)) return;
    if (waiters_.empty()) {
      makeRoom();
      items_.push_front(std::move(item));
    } else {
      waiter = std::move(waiters_.front().second);
      waiters_.pop_front();
    }
  }
  if (!waiter) return available_.notify_one();
  waiter({}, std::move(item));
}

void ReceiveQueue::drop(std::size_t slot) {
  std::lock_guard lock(mutex_);
  ++epochOf(epochs_, slot);
  items_.erase(std::remove_if(items_.begin(), items_.end(),
                              [slot](const Item& item) { return item.slot == slot; }),
               items_.end());
}

Status ReceiveQueue::pop(std::optional<std::chrono::nanoseconds> timeout,
                         std::optional<Item>& out) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return !items_.empty() || closed_; };
  if (!ready()) {
    if (timeout) {
      if (!available_.wait_for(lock, *timeout, ready)) return {};
    } else {
      available_.wait(lock, ready);
    }
  }
  if (!items_.empty()) {
    out = std::move(items_.front());
    items_.pop_front();
    return {};
  }
  return *closed_;
}

ReceiveQueue::Ticket ReceiveQueue::popAsync(Waiter waiter) {
  std::optional<Item> item;
  Status failure;
  Ticket ticket = 0;
  {
    std::lock_guard lock(mutex_);
    ticket = nextTicket_++;
    if (!items_.empty()) {
      item = std::move(items_.front());
      items_.pop_front();
    } else if (closed_) {
      failure = *closed_;
    } else {
      waiters_.emplace_back(ticket, std::move(waiter));
      return ticket;
    }
  }
  waiter(failure, item ? std::move(*item) : Item{});
  return ticket;
}

bool ReceiveQueue::withdraw(Ticket ticket) {
  std::lock_guard lock(mutex_);
  auto found = std::find_if(waiters_.begin(), waiters_.end(),
                            [ticket](const auto& waiter) { return waiter.first == ticket; });
  if (found == waiters_.end()) return false;
  waiters_.erase(found);
  return true;
}

void ReceiveQueue::close(const Status& why) {
  std::deque<std::pair<Ticket, Waiter>> waiters;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = why;
    items_.clear();
    waiters.swap(waiters_);
  }
  available_.notify_all();
  for (auto& waiter : waiters) waiter.second(why, {});
}

void ReceiveQueue::makeRoom(std::size_t more) {
  if (items_.capacity() - items_.size() >= more) return;
  items_.set_capacity(std::max({items_.capacity() * 2, items_.size() + more, std::size_t{16}}));
}

std::size_t ReceiveQueue::size() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

}  // namespace reconsume::detail::client
