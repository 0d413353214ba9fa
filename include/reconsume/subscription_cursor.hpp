// What the broker reports about a subscription: its backlog (SubscriptionStats) and what it has
// acknowledged (SubscriptionCursor), as Admin::subscriptions and Admin::cursor return them.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reconsume/message.hpp"

namespace reconsume {

struct SubscriptionStats {
  std::string name;
  std::int64_t backlog{0};  // messages not yet acknowledged
};

// Messages a subscription acknowledged beyond its mark-delete position: those after `after` up to
// and including `upTo` (Pulsar's open-closed range "(after..upTo]").
struct AcknowledgedRange {
  MessageId after;
  MessageId upTo;
};

// What a subscription has acknowledged of one topic or partition, as the broker's cursor keeps
// it (Pulsar's internal stats: markDeletePosition and individuallyDeletedMessages). Positions are
// entries: only ledger and entry are compared, so a message of a batch entry counts as
// acknowledged only once its whole entry is.
struct SubscriptionCursor {
  // This message and every one before it are acknowledged (entry -1: nothing of that ledger).
  MessageId markDeletePosition;
  std::vector<AcknowledgedRange> acknowledgedRanges;  // beyond markDeletePosition, in order

  bool isAcknowledged(const MessageId& id) const;
};

}  // namespace reconsume
