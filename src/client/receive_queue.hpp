// The consumer's receive queue: what the backend consumers delivered and the application has not
// taken yet, merged over every topic and partition the consumer reads. Blocking receivers wait on
// a condition variable; async receivers wait in line and get messages in the order they asked. An
// async receiver may leave the line (withdraw) or give back an item it got and did not hand to the
// application (a cancelled receive): that item is the next one received.
//
// Thread safety: all members may be called from any thread. push() and drop() are called by
// backends (possibly while they hold a lock of their own): the queue never calls back into a
// backend, and runs an async waiter only after releasing its own lock.
#pragma once

#include <boost/circular_buffer.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "client/backend.hpp"

namespace reconsume::detail::client {

class ReceiveQueue {
 public:
  struct Item {
    std::shared_ptr<MessageData> message;
    std::size_t slot = 0;  // which backend consumer it came from
    // The slot's drop count when it was pushed: an item given back after its slot was dropped is
    // stale (its backend delivers it again).
    std::uint64_t epoch = 0;
  };
  using Waiter = std::function<void(const Status&, Item)>;
  using Ticket = std::uint64_t;  // an async receiver's place in line

  void push(Item item);
  // The messages of one backend consumer (`slot`), in order, as push() for each, under one lock
  // and with one wake-up of the blocked receivers. The elements are moved from.
  void pushAll(std::size_t slot, std::vector<std::shared_ptr<MessageData>>& messages);
  // Removes everything queued from `slot` (its backend will deliver it again).
  void drop(std::size_t slot);
  // Blocks until an item is there, `timeout` (real time) passes (nothing), or the queue is
  // closed (a failed Status). The clock is read only when there is nothing to take at once.
  Status pop(std::optional<std::chrono::nanoseconds> timeout, std::optional<Item>& out);
  // Calls `waiter` once with the next item, or with the closing Status (inline when there is one).
  Ticket popAsync(Waiter waiter);
  // Takes `ticket` out of the line: true when it was still waiting (its waiter is never called).
  bool withdraw(Ticket ticket);
  // An item popped and not handed to the application goes back to the front of the queue (or to
  // the first waiter); dropped when its slot was dropped meanwhile or the queue is closed.
  void giveBack(Item item);
  // Wakes every waiter with `why`; later pops fail with it too.
  void close(const Status& why);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable available_;
  // Room for `more` items (at either end), the capacity at least doubled when it grows.
  void makeRoom(std::size_t more = 1);

  // A ring that keeps its capacity (bounded by the permits the consumer gives the broker): a
  // std::deque allocated a block on the I/O thread for every 16 messages pushed and freed it on
  // the application's thread once they were popped.
  boost::circular_buffer<Item> items_;
  std::deque<std::pair<Ticket, Waiter>> waiters_;
  Ticket nextTicket_ = 1;
  std::vector<std::uint64_t> epochs_;  // drops per slot
  std::optional<Status> closed_;
};

}  // namespace reconsume::detail::client
