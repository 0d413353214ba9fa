// The consumer's receive queue: what the backend consumers delivered and the application has not
// taken yet, merged over every topic and partition the consumer reads. Blocking receivers wait on
// a condition variable; async receivers wait in line and get messages in the order they asked.
//
// Thread safety: all members may be called from any thread. push() and drop() are called by
// backends (possibly while they hold a lock of their own): the queue never calls back into a
// backend, and runs an async waiter only after releasing its own lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "client/backend.hpp"

namespace reconsume::detail::client {

class ReceiveQueue {
 public:
  struct Item {
    std::shared_ptr<MessageData> message;
    std::size_t slot = 0;  // which backend consumer it came from
  };
  using Waiter = std::function<void(const Status&, Item)>;

  void push(Item item);
  // Removes everything queued from `slot` (its backend will deliver it again).
  void drop(std::size_t slot);
  // Blocks until an item is there, the deadline (real time) passes (nothing), or the queue is
  // closed (a failed Status).
  Status pop(std::optional<std::chrono::steady_clock::time_point> deadline,
             std::optional<Item>& out);
  // Calls `waiter` once with the next item, or with the closing Status.
  void popAsync(Waiter waiter);
  // Wakes every waiter with `why`; later pops fail with it too.
  void close(const Status& why);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::deque<Item> items_;
  std::deque<Waiter> waiters_;
  std::optional<Status> closed_;
};

}  // namespace reconsume::detail::client
