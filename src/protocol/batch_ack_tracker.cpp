#include "protocol/batch_ack_tracker.hpp"

#include <algorithm>

namespace reconsume::detail::protocol {

BatchAckTracker::BatchAckTracker(int batchSize)
    : acked_(static_cast<std::size_t>(std::max(batchSize, 0)), false),
      remaining_(std::max(batchSize, 0)) {}

BatchAckTracker::BatchAckTracker(int batchSize, std::span<const std::int64_t> ackSet)
    : BatchAckTracker(batchSize) {
  if (ackSet.empty()) return;
  for (std::size_t index = 0; index < acked_.size(); ++index) {
    const std::size_t word = index / 64;
    const bool pending = word < ackSet.size() &&
                         ((static_cast<std::uint64_t>(ackSet[word]) >> (index % 64)) & 1u) != 0;
    if (!pending) {
      acked_[index] = true;
      --remaining_;
    }
  }
}

bool BatchAckTracker::acknowledge(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= acked_.size()) return false;
  if (acked_[static_cast<std::size_t>(index)]) return false;
  acked_[static_cast<std::size_t>(index)] = true;
  return --remaining_ == 0;
}

bool BatchAckTracker::isAcknowledged(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < acked_.size() &&
         acked_[static_cast<std::size_t>(index)];
}

std::vector<std::int64_t> BatchAckTracker::ackSet() const {
  std::vector<std::int64_t> words((acked_.size() + 63) / 64, 0);
  for (std::size_t index = 0; index < acked_.size(); ++index) {
    if (!acked_[index]) {
      words[index / 64] = static_cast<std::int64_t>(static_cast<std::uint64_t>(words[index / 64]) |
                                                    (std::uint64_t{1} << (index % 64)));
    }
  }
  return words;
}

}  // namespace reconsume::detail::protocol
