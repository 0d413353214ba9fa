// Messages waiting to be redelivered at a time of the clock: negatively acknowledged ones (due
// after the negative-ack delay or backoff) and received-but-unacknowledged ones (due when their
// ack timeout expires). One clock timer, armed for the earliest entry; when it fires, every due
// message is handed to `redeliver`, grouped by the backend consumer (slot) it came from. These are
// waits of a length: they run on the clock's monotonic time (steadyNow), which a step of the wall
// clock does not move.
//
// Thread safety: all members may be called from any thread. `redeliver` runs on the clock's
// timer thread, with no lock of this class held.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "client/slot_message_key.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::client {

class RedeliveryScheduler : public std::enable_shared_from_this<RedeliveryScheduler> {
 public:
  using Redeliver = std::function<void(std::size_t slot, std::vector<MessageId> ids)>;

  RedeliveryScheduler(std::shared_ptr<Clock> clock, Redeliver redeliver);

  // Schedules (or re-schedules) the message for redelivery at `due`.
  void add(std::size_t slot, const MessageId& id, Clock::steady_time_point due);
  // Forgets the message (acknowledged); true when it was scheduled.
  bool remove(std::size_t slot, const MessageId& id);
  // Forgets every message of `slot`.
  void removeSlot(std::size_t slot);
  // Forgets everything and disarms the timer.
  void clear();
  std::size_t size() const;

 private:
  using Key = SlotMessageKey;
  using KeyHash = SlotMessageKeyHash;

  void armLocked();
  void fire();

  std::shared_ptr<Clock> clock_;
  Redeliver redeliver_;
  mutable std::mutex mutex_;
  std::multimap<Clock::steady_time_point, Key> byDue_;
  std::unordered_map<Key, std::multimap<Clock::steady_time_point, Key>::iterator, KeyHash> byKey_;
  std::atomic<std::size_t> scheduled_{0};  // byKey_.size(), readable without the lock
  std::optional<Clock::TimerId> timer_;
  Clock::steady_time_point armedFor_{};
};

}  // namespace reconsume::detail::client
