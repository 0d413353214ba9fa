// A subscription's position in its topic: the mark-delete position (every entry before it is
// acknowledged), the read position (the next entry never read), and what became of each entry in
// between — delivered to a consumer, waiting for redelivery, held for delayed delivery,
// acknowledged in a transaction still open, or acknowledged individually. Pulsar's ManagedCursor
// plus the dispatcher's bookkeeping, in one window of slots that slides forward as the acknowledged
// prefix grows.
//
// Thread safety: none; the owning Topic guards it with its mutex.
#pragma once

#include <cstdint>
#include <deque>

namespace reconsume::detail::embedded {

enum class EntryState : std::uint8_t {
  unread,   // not handed to any consumer since the last rewind
  pending,  // delivered to `owner`, not acknowledged
  replay,   // waiting in the dispatcher's replay queue
  delayed,  // waiting in the delayed-delivery index
  // Acknowledged in a transaction not yet ended (Pulsar's pending ack): delivered to nobody, not
  // acknowledged either (still in the backlog) until the transaction commits.
  txnPending,
  acked,
};

struct EntrySlot {
  EntryState state{EntryState::unread};
  std::uint32_t redeliveries{0};
  std::uint64_t owner{0};  // the consumer id while pending
};

class Cursor {
 public:
  explicit Cursor(std::int64_t start) : markDelete_(start), readPosition_(start) {}

  std::int64_t markDelete() const { return markDelete_; }
  std::int64_t readPosition() const { return readPosition_; }
  void advanceRead() { ++readPosition_; }

  // The slot of `entry` (>= markDelete()), created unread when first asked for.
  EntrySlot& slot(std::int64_t entry);
  // The state without creating a slot: acked before the mark-delete position, unread past the
  // window.
  EntryState state(std::int64_t entry) const;
  // The consumer `entry` is pending with, or 0 when it is not pending.
  std::uint64_t pendingOwner(std::int64_t entry) const;

  // Marks `entry` acknowledged; false when it already was. Slides the window over the
  // acknowledged prefix.
  bool acknowledge(std::int64_t entry);

  // Messages of [markDelete, end) not acknowledged.
  std::int64_t backlog(std::int64_t end) const { return end - markDelete_ - ackedInWindow_; }

  // Every entry neither acknowledged nor pending in a transaction becomes unread and reading
  // restarts at the mark-delete position (Pulsar's cursor rewind). With `forgetRedeliveries`,
  // redelivery counts start again at 0.
  void rewind(bool forgetRedeliveries);
  // Everything before `position` counts as acknowledged, everything from it on as unread and not
  // acknowledged (Pulsar's reset-cursor, used by seek).
  void resetTo(std::int64_t position);

  // Calls fn(entry, slot) for every slot in the window, oldest first.
  template <typename Fn>
  void forEachSlot(Fn&& fn) {
    std::int64_t entry = markDelete_;
    for (auto& slot : window_) fn(entry++, slot);
  }
  template <typename Fn>
  void forEachSlot(Fn&& fn) const {
    std::int64_t entry = markDelete_;
    for (const auto& slot : window_) fn(entry++, slot);
  }

 private:
  std::int64_t markDelete_;
  std::int64_t readPosition_;
  std::deque<EntrySlot> window_;  // slots of [markDelete_, markDelete_ + window_.size())
  std::int64_t ackedInWindow_{0};
};

}  // namespace reconsume::detail::embedded
