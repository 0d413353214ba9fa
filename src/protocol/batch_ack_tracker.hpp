// Which messages of one batch entry are acknowledged.
//
// Pulsar acknowledges entries, not messages: a batch entry of n messages stays unacknowledged on
// the broker until the consumer acknowledges the entry. The consumer therefore records each
// message's acknowledgement here and sends one entry-level ACK when acknowledge() reports the
// entry complete. Brokers with acknowledgmentAtBatchIndexLevelEnabled also accept a partial
// acknowledgement carrying ackSet(); on other brokers such an ACK acknowledges the whole entry,
// so only send it when the user says the broker has the feature
// (ConsumerOptions::batchIndexAcknowledgement).
//
// Bit convention (Pulsar's, for CommandMessage.ack_set and CommandAck's MessageIdData.ack_set):
// words of 64 indexes, index i in word i / 64 at bit i % 64; a SET bit means "not yet
// acknowledged", a CLEAR bit means "acknowledged".
//
// Thread safety: not synchronised. Messages of one entry share one tracker; the consumer that
// owns it serialises the calls (one strand or one mutex).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace reconsume::detail::protocol {

class BatchAckTracker {
 public:
  // Every index of a batch of `batchSize` (clamped to >= 0) messages unacknowledged.
  explicit BatchAckTracker(int batchSize);
  // As the broker delivered the entry: an index whose bit is clear in `ackSet` counts as
  // acknowledged already (an index beyond the words given counts as acknowledged too, as Pulsar's
  // clients read it). An empty ackSet means nothing was acknowledged. If every index is
  // acknowledged already, complete() is true from the start and acknowledge() never returns true.
  BatchAckTracker(int batchSize, std::span<const std::int64_t> ackSet);

  int batchSize() const { return static_cast<int>(acked_.size()); }
  // Records that message `index` is acknowledged. Returns true when this completed the entry
  // (exactly once per entry); false for an index already acknowledged or outside the batch.
  bool acknowledge(int index);
  bool isAcknowledged(int index) const;
  bool complete() const { return remaining_ == 0; }
  int remaining() const { return remaining_; }

  // The ack_set words for a batch-index acknowledgement of what is acknowledged so far.
  std::vector<std::int64_t> ackSet() const;

 private:
  std::vector<bool> acked_;
  int remaining_{0};
};

}  // namespace reconsume::detail::protocol
