// Topic: transactional acknowledgements and the end of transactions. See topic.hpp and
// transaction_buffer.hpp.
#include "embedded/topic.hpp"
#include "embedded/topic_lock.hpp"

namespace reconsume::detail::embedded {

Status Topic::acknowledge(Subscription& subscription, const MessageId& id, const TxnRef& txn) {
  TopicLock lock(mutex_);
  auto fail = [&](Status status) {
    status.message = "cannot acknowledge message " + id.toString() + " on subscription '" +
                     subscription.name() + "' of topic " + name_ + " in transaction " +
                     txn.id.toString() + ": " + status.message;
    return status;
  };
  // As Pulsar's client does: the subscription joins the transaction before the ACK is sent.
  if (auto status = txn.coordinator.join(txn.id, *this, subscription); !status.ok()) {
    return fail(std::move(status));
  }
  // Trimmed entries stay in range: they are acknowledged, which the subscription reports.
  if (id.ledger() != ledger_.id() || id.entry() < 0 || id.entry() >= ledger_.end()) return {};
  auto status = subscription.acknowledgeInTransaction(id.entry(), txn.id);
  return status.ok() ? status : fail(std::move(status));
}

void Topic::endTransaction(const TxnId& id, bool commit) {
  TopicLock lock(mutex_);
  if (deleted_) return;
  auto entries = txns_.end(id);
  if (entries.empty()) return;
  if (!commit) {
    // Entries the ledger dropped already (only readers were behind them) need nothing.
    std::erase_if(entries, [&](std::int64_t entry) { return entry < ledger_.first(); });
    txns_.markAborted(entries);
    for (auto& [name, subscription] : subscriptions_) subscription->acknowledgeAborted(entries);
  }
  // The read limit may have moved: what waited behind this transaction goes now.
  for (auto& [name, subscription] : subscriptions_) subscription->dispatch();
  maybeTrim();
}

void Topic::endTransactionAcks(Subscription& subscription, const TxnId& id, bool commit) {
  TopicLock lock(mutex_);
  if (deleted_) return;
  subscription.endTransaction(id, commit);
  maybeTrim();
}

}  // namespace reconsume::detail::embedded
