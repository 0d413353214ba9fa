#include "pulsar/send_queue.hpp"

#include <algorithm>

namespace reconsume::detail::pulsar {

namespace {

// Messages of a transaction are sent one per entry (never batched) and carry its id.
bool isTransactional(const OutgoingEntry& entry) {
  return entry.batch.empty() && entry.single.metadata.has_txnid_least_bits();
}

}  // namespace

SendQueue::Admitted SendQueue::admit(OutgoingEntry message, BackendCallback<MessageId> done,
                                     TimePoint deadline, const Encoder& encode) {
  // Waiting messages go first: a message must not overtake one sent before it.
  if (pending_.size() < maxPending_ && waiting_.empty()) {
    auto sequenceId = nextSequenceId_;
    nextSequenceId_ += message.count();
    bool transactional = isTransactional(message);
    pending_.push_back(
        {sequenceId, encode(message, sequenceId), std::move(done), deadline, transactional});
    return Admitted::pending;
  }
  if (!blockIfFull_) return Admitted::busy;
  waiting_.push_back({std::move(message), std::move(done), deadline});
  return Admitted::waiting;
}

std::optional<SendQueue::Pending> SendQueue::receipt(std::uint64_t sequenceId, bool& outOfOrder) {
  outOfOrder = false;
  if (pending_.empty()) return std::nullopt;
  auto oldest = pending_.front().sequenceId;
  if (sequenceId < oldest) return std::nullopt;
  if (sequenceId > oldest) {
    outOfOrder = true;
    return std::nullopt;
  }
  auto done = std::move(pending_.front());
  pending_.pop_front();
  return done;
}

std::size_t SendQueue::refill(const Encoder& encode) {
  std::size_t moved = 0;
  while (!waiting_.empty() && pending_.size() < maxPending_) {
    auto& next = waiting_.front();
    auto sequenceId = nextSequenceId_;
    nextSequenceId_ += next.message.count();
    bool transactional = isTransactional(next.message);
    pending_.push_back({sequenceId, encode(next.message, sequenceId), std::move(next.done),
                        next.deadline, transactional});
    waiting_.pop_front();
    ++moved;
  }
  return moved;
}

std::vector<BackendCallback<MessageId>> SendQueue::expire(TimePoint now) {
  std::vector<BackendCallback<MessageId>> expired;
  // Deadlines grow with the order of sends, so the expired ones are at the front; a message
  // behind an unexpired one waits for it (its receipt could still come).
  while (!pending_.empty() && pending_.front().deadline <= now) {
    expired.push_back(std::move(pending_.front().done));
    pending_.pop_front();
  }
  while (!waiting_.empty() && waiting_.front().deadline <= now) {
    expired.push_back(std::move(waiting_.front().done));
    waiting_.pop_front();
  }
  return expired;
}

std::vector<BackendCallback<MessageId>> SendQueue::takeAll() {
  std::vector<BackendCallback<MessageId>> all;
  for (auto& entry : pending_) all.push_back(std::move(entry.done));
  for (auto& entry : waiting_) all.push_back(std::move(entry.done));
  pending_.clear();
  waiting_.clear();
  return all;
}

void SendQueue::markWritten(std::size_t count) {
  for (auto it = pending_.end() - static_cast<std::ptrdiff_t>(count); it != pending_.end(); ++it) {
    it->written = true;
  }
}

std::vector<SendQueue::Pending> SendQueue::takeWrittenTransactional() {
  std::vector<Pending> taken;
  std::deque<Pending> kept;
  for (auto& entry : pending_) {
    if (entry.transactional && entry.written) {
      taken.push_back(std::move(entry));
    } else {
      entry.written = false;
      kept.push_back(std::move(entry));
    }
  }
  pending_ = std::move(kept);
  return taken;
}

std::optional<SendQueue::TimePoint> SendQueue::nextDeadline() const {
  std::optional<TimePoint> next;
  if (!pending_.empty()) next = pending_.front().deadline;
  if (!waiting_.empty())
    next = next ? std::min(*next, waiting_.front().deadline) : waiting_.front().deadline;
  if (next && *next == TimePoint::max()) return std::nullopt;
  return next;
}

}  // namespace reconsume::detail::pulsar
