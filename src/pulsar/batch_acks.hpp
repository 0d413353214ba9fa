// A consumer's batch entries whose messages are acknowledged one by one. Pulsar acknowledges
// entries: the entry's ACK goes to the broker once every message of it is acknowledged. Until
// then an acknowledgement is only recorded here (and completes at once); if the entry is
// delivered again meanwhile (reconnection, redelivery), its messages acknowledged before are
// dropped instead of handed on twice. Only the last message's acknowledgement waits for the
// broker's confirmation — unless the consumer sends batch-index acknowledgements
// (SubscribeSpec::batchIndexAcks): then each goes to the broker with the entry's ack set.
//
// Entries with a recorded acknowledgement are held until complete; others only as long as one of
// their messages is alive somewhere (weakly).
//
// Thread safety: not synchronised; the consumer uses it from its strand only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "protocol/batch_ack_tracker.hpp"

namespace reconsume::detail::pulsar {

class BatchAcks {
 public:
  using Tracker = protocol::BatchAckTracker;
  using Entry = std::pair<std::int64_t, std::int64_t>;  // ledger, entry

  // The tracker every delivered message of `entry` shares: the one known for it, with what
  // `fresh` (from the delivery's ack set) knows merged in; else `fresh` itself.
  std::shared_ptr<Tracker> trackerFor(Entry entry, std::shared_ptr<Tracker> fresh);

  enum class Outcome { already, recorded, complete };
  // Message `index` of `entry` is acknowledged. complete: send the entry's ACK now.
  Outcome acknowledge(Entry entry, const std::shared_ptr<Tracker>& tracker, int index);

  void clear() {
    partial_.clear();
    live_.clear();
  }
  std::size_t partialEntries() const { return partial_.size(); }

 private:
  void compact();

  std::map<Entry, std::shared_ptr<Tracker>> partial_;
  std::map<Entry, std::weak_ptr<Tracker>> live_;
  std::size_t compactAt_ = 1024;
};

}  // namespace reconsume::detail::pulsar
