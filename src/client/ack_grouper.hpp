// Plain acknowledgements grouped in time (ConsumerOptions::acknowledgmentGroupTime, SPEC.md
// section 12): held until the group time has passed since the first of them, or until
// kMaxGroupSize are held, then handed on together — on Pulsar one ACK command per group instead
// of one per acknowledgement or burst, as the Java client's acknowledgmentGroupTime does.
//
// While an acknowledgement is held the broker does not know it: a message the broker delivers
// again meanwhile (after a reconnection) is recognised through held() and not handed out twice.
//
// The wait is a transport delay, like producer batching's maxPublishDelay: it runs on real
// monotonic time (the network layer's SteadyClock), not on ClientOptions::clock — a ManualClock
// in a test neither holds acknowledgements back nor makes acknowledge() with receipts hang.
//
// Thread safety: every member may be called from any thread. `flush` (the constructor's) runs
// with no lock of this class held: on the thread of the add() that filled the group, of
// flushNow(), or on `executor` when the time is up.
#pragma once

#include <atomic>
#include <boost/unordered/unordered_flat_set.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "client/slot_message_key.hpp"
#include "common/callback.hpp"
#include "common/steady_clock.hpp"

namespace reconsume::detail::client {

class AckGrouper : public std::enable_shared_from_this<AckGrouper> {
 public:
  struct Held {
    std::size_t slot;
    Message message;
    Callback<> done;  // the broker's answer to this acknowledgement; may be empty
    std::chrono::steady_clock::time_point started;  // when the application acknowledged
  };
  // Takes the group's acknowledgements (moves them out); the vector itself is kept for a later
  // group.
  using Flush = std::function<void(std::vector<Held>&)>;

  // As the Java client's maxAcknowledgmentGroupSize: a full group goes out at once.
  static constexpr std::size_t kMaxGroupSize = 1000;

  AckGrouper(const boost::asio::any_io_executor& executor, std::shared_ptr<SteadyClock> clock,
             std::chrono::milliseconds groupTime, Flush flush);
  // Hands what is still held to `flush`: destroyed with a consumer nobody holds any more (dropped
  // without close(), which would have flushed), the flush answers each waiting caller that its
  // consumer is gone, rather than destroying their callbacks unanswered.
  ~AckGrouper();
  AckGrouper(const AckGrouper&) = delete;
  AckGrouper& operator=(const AckGrouper&) = delete;

  void add(Held ack);
  // The held acknowledgements, to check the messages of one delivery against under one lock:
  // the lock is taken only when something is held, and kept while the view lives (add() waits
  // for it), so keep it for the delivery only. Before, each message received took the lock;
  // while the application acknowledged the messages before it, the two threads contended.
  class HeldView {
   public:
    // Whether an acknowledgement of message `id` of `slot` is held (not yet handed on).
    bool contains(std::size_t slot, const MessageId& id) const {
      return lock_.owns_lock() && grouper_->heldIds_.contains({slot, id});
    }

   private:
    friend class AckGrouper;
    explicit HeldView(const AckGrouper& grouper);
    const AckGrouper* grouper_;
    std::unique_lock<std::mutex> lock_;
  };
  HeldView held() const { return HeldView(*this); }
  // Hands every held acknowledgement on now (before close, seek, redelivery of everything).
  void flushNow();
  std::size_t size() const;

 private:
  void armLocked();
  std::vector<Held> takeLocked();
  void handOn(std::vector<Held> group);

  std::chrono::milliseconds groupTime_;
  Flush flush_;
  mutable std::mutex mutex_;
  std::vector<Held> held_;
  // The last group handed on, emptied: the next group fills it. A group of a thousand is about
  // 100 KiB, which malloc would otherwise give back to the system and fault in again each time.
  std::vector<Held> spare_;
  // Open addressing, sized for a full group once: holding an acknowledgement allocates nothing.
  boost::unordered_flat_set<SlotMessageKey, SlotMessageKeyHash> heldIds_;
  // held_.size(), written under mutex_: held() — called for every delivery — takes the lock only
  // when something is held (never, for acknowledgements that bypass the group).
  std::atomic<std::size_t> heldCount_{0};
  Timer timer_;  // used under mutex_ only
  bool armed_ = false;
};

}  // namespace reconsume::detail::client
