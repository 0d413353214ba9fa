// Subscription: its part in transactions (Pulsar's PendingAckHandle), and how aborted
// publishes are kept from its consumers. See subscription.hpp.
#include "embedded/subscription.hpp"
#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {

Status Subscription::acknowledgeInTransaction(std::int64_t entry, const TxnId& id) {
  switch (cursor_.state(entry)) {
    case EntryState::acked:
      return Status(errc::transaction_conflict, "it was acknowledged before");
    case EntryState::txnPending: {
      auto holder = txnAcks_.find(entry);  // always there: set and cleared with the state
      return Status(errc::transaction_conflict,
                    "it is pending in transaction " +
                        (holder != txnAcks_.end() ? holder->second.toString() : "?"));
    }
    default:
      break;
  }
  // Whatever it was (delivered, queued for redelivery, delayed, unread), nobody gets it now;
  // the dispatchers drop it from their queues when they find it no longer waiting there.
  auto& slot = cursor_.slot(entry);
  slot.state = EntryState::txnPending;
  slot.owner = 0;
  txnAcks_.emplace(entry, id);
  return {};
}

void Subscription::endTransaction(const TxnId& id, bool commit) {
  std::vector<std::int64_t> released;
  for (auto it = txnAcks_.begin(); it != txnAcks_.end();) {
    if (!(it->second == id)) {
      ++it;
      continue;
    }
    auto entry = it->first;
    it = txnAcks_.erase(it);
    // A plain acknowledgement or a seek may have settled it meanwhile.
    if (cursor_.state(entry) != EntryState::txnPending) continue;
    if (commit) {
      cursor_.acknowledge(entry);
    } else {
      released.push_back(entry);
    }
  }
  if (commit) {
    checkEnded();
  } else {
    release(released);
  }
}

void Subscription::release(const std::vector<std::int64_t>& entries) {
  if (entries.empty()) return;
  if (consumers_.empty() || singleActive()) {
    for (auto entry : entries) cursor_.slot(entry).state = EntryState::unread;
    // As Pulsar's single-active dispatcher redelivers: everything unacknowledged, from the
    // oldest, to the active consumer after its queue was dropped. With no consumer, the next
    // one starts from the oldest unacknowledged message anyway.
    if (!consumers_.empty()) {
      if (auto* active = dispatcher_->active()) reset(*active);
    }
    cursor_.rewind(false);
  } else {
    for (auto entry : entries) {
      auto& slot = cursor_.slot(entry);
      slot.state = EntryState::replay;
      ++slot.redeliveries;
      dispatcher_->addReplay(entry);
    }
  }
  dispatch();
}

void Subscription::acknowledgeAborted(const std::vector<std::int64_t>& entries) {
  for (auto entry : entries) acknowledge(entry);
}

void Subscription::restoreTransactionState() {
  for (auto it = txnAcks_.begin(); it != txnAcks_.end();) {
    if (it->first < cursor_.markDelete()) {
      it = txnAcks_.erase(it);  // a seek went past it: acknowledged for good
    } else {
      cursor_.slot(it->first).state = EntryState::txnPending;
      ++it;
    }
  }
  const auto& aborted = topic_.abortedEntries();
  for (auto it = aborted.lower_bound(cursor_.markDelete()); it != aborted.end(); ++it) {
    cursor_.acknowledge(*it);
  }
}

}  // namespace reconsume::detail::embedded
