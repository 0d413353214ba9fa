// Which messages of one batch entry are acknowledged, and by whom.
//
// Pulsar acknowledges entries, not messages: a batch entry of n messages stays unacknowledged on
// the broker until the consumer acknowledges the entry. The consumer therefore records each
// message's acknowledgement here and sends one entry-level ACK when acknowledge() reports the
// entry complete. Brokers with acknowledgmentAtBatchIndexLevelEnabled also accept a partial
// acknowledgement carrying ackSet(); on other brokers such an ACK acknowledges the whole entry,
// so only send it when the user says the broker has the feature
// (ConsumerOptions::batchIndexAcknowledgement) or the broker showed it has
// (acknowledgedElsewhere() > 0: it only reports indexes on delivery when it has the feature).
//
// An index is open, acknowledged here (by this consumer), or acknowledged elsewhere: the broker
// said so when it delivered the entry. The broker reports an index acknowledged inside a
// still-open transaction that way too, so ackSet() carries only this consumer's own
// acknowledgements: the broker combines them with what it has (an AND of the words), and an
// abort leaves the transaction's indexes unacknowledged, as it must.
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
  // Every index of a batch of `batchSize` (clamped to >= 0) messages open.
  explicit BatchAckTracker(int batchSize);
  // As the broker delivered the entry: an index whose bit is clear in `ackSet` is acknowledged
  // elsewhere (an index beyond the words given too, as Pulsar's clients read it). An empty ackSet
  // means nothing was acknowledged. If every index is acknowledged already, complete() is true
  // from the start.
  BatchAckTracker(int batchSize, std::span<const std::int64_t> ackSet);

  int batchSize() const { return static_cast<int>(states_.size()); }
  // Records that this consumer acknowledged message `index` (also one acknowledged elsewhere
  // before). Returns true when this completed the entry (exactly once per entry while no index
  // reopens); false for an index acknowledged already or outside the batch.
  bool acknowledge(int index);
  // The broker reports message `index` acknowledged; one acknowledged here stays so.
  void acknowledgedElsewhere(int index);
  // The broker delivers message `index` as open again (a transaction that acknowledged it
  // aborted): an index acknowledged elsewhere opens; one acknowledged here stays acknowledged.
  void reopen(int index);

  bool isAcknowledged(int index) const;
  bool isAcknowledgedHere(int index) const;
  bool isAcknowledgedElsewhere(int index) const;
  bool complete() const { return remaining_ == 0; }
  int remaining() const { return remaining_; }
  int acknowledgedElsewhere() const { return elsewhere_; }

  // The ack_set words for a batch-index acknowledgement of what this consumer acknowledged:
  // bits of open indexes and of indexes acknowledged elsewhere stay set.
  std::vector<std::int64_t> ackSet() const;

 private:
  enum class State : std::uint8_t { open, here, elsewhere };
  State stateOf(int index) const;

  std::vector<State> states_;
  int remaining_{0};
  int elsewhere_{0};
};

}  // namespace reconsume::detail::protocol
