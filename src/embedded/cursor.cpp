#include "embedded/cursor.hpp"

#include <algorithm>

namespace reconsume::detail::embedded {

EntrySlot& Cursor::slot(std::int64_t entry) {
  auto index = static_cast<std::size_t>(entry - markDelete_);
  if (index >= window_.size()) window_.resize(index + 1);
  return window_[index];
}

EntryState Cursor::state(std::int64_t entry) const {
  if (entry < markDelete_) return EntryState::acked;
  auto index = static_cast<std::size_t>(entry - markDelete_);
  return index < window_.size() ? window_[index].state : EntryState::unread;
}

std::uint64_t Cursor::pendingOwner(std::int64_t entry) const {
  if (state(entry) != EntryState::pending) return 0;
  return window_[static_cast<std::size_t>(entry - markDelete_)].owner;
}

bool Cursor::acknowledge(std::int64_t entry) {
  if (entry < markDelete_) return false;
  auto& acked = slot(entry);
  if (acked.state == EntryState::acked) return false;
  acked.state = EntryState::acked;
  ++ackedInWindow_;
  while (!window_.empty() && window_.front().state == EntryState::acked) {
    window_.pop_front();
    ++markDelete_;
    --ackedInWindow_;
  }
  readPosition_ = std::max(readPosition_, markDelete_);
  return true;
}

void Cursor::rewind(bool forgetRedeliveries) {
  for (auto& slot : window_) {
    if (slot.state != EntryState::acked && slot.state != EntryState::txnPending) {
      slot.state = EntryState::unread;
      slot.owner = 0;
    }
    if (forgetRedeliveries) slot.redeliveries = 0;
  }
  readPosition_ = markDelete_;
}

void Cursor::resetTo(std::int64_t position) {
  window_.clear();
  ackedInWindow_ = 0;
  markDelete_ = position;
  readPosition_ = position;
}

}  // namespace reconsume::detail::embedded
