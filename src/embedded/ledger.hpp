// The stored messages of one topic (or partition): one ledger with entries numbered from 0.
// The oldest, fully acknowledged entries may be dropped (trimBefore); entry numbers never change.
//
// Thread safety: none; the owning Topic guards it with its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

#include "common/message_data.hpp"

namespace reconsume::detail::embedded {

struct LedgerEntry {
  // Shared with every delivery that does not need a different redelivery count: stored once,
  // never modified after the append.
  std::shared_ptr<MessageData> data;
  std::int64_t deliverAtMs{0};  // epoch ms; 0: deliver at once
};

class Ledger {
 public:
  explicit Ledger(std::int64_t id) : id_(id) {}

  std::int64_t id() const { return id_; }
  // Entries still stored are [first(), end()).
  std::int64_t first() const { return first_; }
  std::int64_t end() const { return first_ + static_cast<std::int64_t>(entries_.size()); }
  bool empty() const { return entries_.empty(); }

  const LedgerEntry& at(std::int64_t entry) const {
    return entries_[static_cast<std::size_t>(entry - first_)];
  }
  void append(LedgerEntry entry) { entries_.push_back(std::move(entry)); }

  // Drops the entries before `entry`.
  //
  // Trimmed entries were written long ago (up to retainedAcknowledgedEntries messages back), and
  // freeing one missed the cache on every block it touched: in an open-ended embedded round trip
  // (perf), freeing messages took a fifth of the time. They go in order, one or two per
  // acknowledgement, so what the next ones will touch is asked for ahead: all of the message two
  // places on (its reference counts and fields), and the blocks the next one's fields point to
  // (its fields were asked for on the trim before). A prefetch is a hint and never faults: where
  // the allocator's layout is not what the offsets assume, it costs only the hint. Written here
  // rather than in a helper: GCC finds a function that only prefetches free of effects and drops
  // its calls.
  void trimBefore(std::int64_t entry) {
    while (first_ < entry && !entries_.empty()) {
      entries_.pop_front();
      ++first_;
    }
    if (entries_.size() < 3) return;
    // 16 bytes before a block: std::make_shared's counts, malloc's chunk header (as an integer:
    // pointer arithmetic may not leave the object).
    auto header = [](const void* block) {
      return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(block) - 16);
    };
    const auto message = reinterpret_cast<std::uintptr_t>(header(entries_[2].data.get()));
    for (std::size_t at = 0; at < sizeof(MessageData) + 16; at += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(message + at));
    }
    const MessageData& next = *entries_[0].data;
    if (next.payload.size() > 0) __builtin_prefetch(header(next.payload.data()));
    __builtin_prefetch(header(next.properties.storage()));
  }

 private:
  std::int64_t id_;
  std::int64_t first_{0};
  std::deque<LedgerEntry> entries_;
};

}  // namespace reconsume::detail::embedded
