// The order of two messages of one topic or partition: by ledger, entry and batch index (-1, a
// whole entry, before index 0). Not by partition, which is the reader's or consumer's own: the Go
// client writes 0 where the Java client writes -1 for a topic that is not partitioned.
//
// Thread safety: a pure function.
#pragma once

#include "reconsume/message.hpp"

namespace reconsume::detail {

// -1, 0, 1.
inline int comparePositions(const MessageId& a, const MessageId& b) {
  if (a.ledger() != b.ledger()) return a.ledger() < b.ledger() ? -1 : 1;
  if (a.entry() != b.entry()) return a.entry() < b.entry() ? -1 : 1;
  if (a.batchIndex() != b.batchIndex()) return a.batchIndex() < b.batchIndex() ? -1 : 1;
  return 0;
}

}  // namespace reconsume::detail
