#include "protocol/batch_ack_tracker.hpp"

#include <algorithm>

namespace reconsume::detail::protocol {

BatchAckTracker::BatchAckTracker(int batchSize)
    : states_(static_cast<std::size_t>(std::max(batchSize, 0)), State::open),
      remaining_(std::max(batchSize, 0)) {}

BatchAckTracker::BatchAckTracker(int batchSize, std::span<const std::int64_t> ackSet)
    : BatchAckTracker(batchSize) {
  if (ackSet.empty()) return;
  for (std::size_t index = 0; index < states_.size(); ++index) {
    const std::size_t word = index / 64;
    const bool pending = word < ackSet.size() &&
                         ((static_cast<std::uint64_t>(ackSet[word]) >> (index % 64)) & 1u) != 0;
    if (!pending) acknowledgedElsewhere(static_cast<int>(index));
  }
}

BatchAckTracker::State BatchAckTracker::stateOf(int index) const {
  return states_[static_cast<std::size_t>(index)];
}

bool BatchAckTracker::acknowledge(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= states_.size()) return false;
  auto& state = states_[static_cast<std::size_t>(index)];
  switch (state) {
    case State::here:
      return false;
    case State::elsewhere:
      state = State::here;
      --elsewhere_;
      return false;
    case State::open:
      state = State::here;
      return --remaining_ == 0;
  }
  return false;
}

void BatchAckTracker::acknowledgedElsewhere(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= states_.size()) return;
  auto& state = states_[static_cast<std::size_t>(index)];
  if (state != State::open) return;
  state = State::elsewhere;
  ++elsewhere_;
  --remaining_;
}

void BatchAckTracker::reopen(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= states_.size()) return;
  auto& state = states_[static_cast<std::size_t>(index)];
  if (state != State::elsewhere) return;
  state = State::open;
  --elsewhere_;
  ++remaining_;
}

bool BatchAckTracker::isAcknowledged(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < states_.size() &&
         stateOf(index) != State::open;
}

bool BatchAckTracker::isAcknowledgedHere(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < states_.size() &&
         stateOf(index) == State::here;
}

bool BatchAckTracker::isAcknowledgedElsewhere(int index) const {
  return index >= 0 && static_cast<std::size_t>(index) < states_.size() &&
         stateOf(index) == State::elsewhere;
}

std::vector<std::int64_t> BatchAckTracker::ackSet() const {
  std::vector<std::int64_t> words((states_.size() + 63) / 64, 0);
  for (std::size_t index = 0; index < states_.size(); ++index) {
    if (states_[index] != State::here) {
      words[index / 64] = static_cast<std::int64_t>(static_cast<std::uint64_t>(words[index / 64]) |
                                                    (std::uint64_t{1} << (index % 64)));
    }
  }
  return words;
}

}  // namespace reconsume::detail::protocol
