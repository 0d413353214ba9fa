// The stored messages of one topic (or partition): one ledger with entries numbered from 0.
// The oldest, fully acknowledged entries may be dropped (trimBefore); entry numbers never change.
//
// Thread safety: none; the owning Topic guards it with its mutex.
#pragma once

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

  void trimBefore(std::int64_t entry) {
    while (first_ < entry && !entries_.empty()) {
      entries_.pop_front();
      ++first_;
    }
  }

 private:
  std::int64_t id_;
  std::int64_t first_{0};
  std::deque<LedgerEntry> entries_;
};

}  // namespace reconsume::detail::embedded
