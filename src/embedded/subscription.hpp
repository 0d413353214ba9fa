// One subscription of a topic: its cursor, its consumers, the dispatcher of its type, and its
// delayed-delivery index and timer. Behaviour follows Pulsar's broker:
// - The type is set by the first consumer; while consumers are attached, one asking another
//   type is refused, and an Exclusive subscription takes no second consumer. With no consumer
//   attached the next one may choose any type (Pulsar replaces the dispatcher then).
// - Shared and Key_Shared track redelivery counts and hold delayed messages; Exclusive and
//   Failover do neither (Pulsar disables its redelivery tracker there and ignores the delay),
//   and redeliver by rewinding to the oldest unacknowledged message.
// - When the last consumer leaves, the subscription goes idle as in Pulsar: everything not
//   acknowledged becomes unread again and redelivery counts start from 0.
// - A non-durable subscription (a reader's) acknowledges each message as it delivers it.
// - Transactions: nothing at or after the topic's read limit is dispatched (the first message of
//   its oldest open transaction), entries of aborted transactions count as acknowledged, and an
//   acknowledgement in a transaction holds its message (delivered to nobody, still in the
//   backlog) until the transaction ends (subscription_transactions.cpp).
//
// Thread safety: every member must be called with the owning Topic's mutex held. Sinks are
// called with that mutex held; they must not call back into the broker.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/backend.hpp"
#include "common/txn_id.hpp"
#include "embedded/cursor.hpp"
#include "embedded/delayed_delivery.hpp"
#include "embedded/dispatcher.hpp"
#include "reconsume/subscription_cursor.hpp"

namespace reconsume::detail::embedded {

class Topic;

class Subscription : public std::enable_shared_from_this<Subscription> {
 public:
  // Starts reading at entry `start` (everything before it counts as acknowledged).
  Subscription(Topic& topic, std::string name, bool durable, std::int64_t start);
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  const std::string& name() const { return name_; }
  bool durable() const { return durable_; }
  bool hasConsumers() const { return !consumers_.empty(); }
  std::size_t consumerCount() const { return consumers_.size(); }
  std::int64_t markDelete() const { return cursor_.markDelete(); }
  std::int64_t backlog() const;
  // What is acknowledged, in Pulsar's terms (Admin::cursor); ids carry `ledgerId`, `partition`.
  SubscriptionCursor acknowledged(std::int64_t ledgerId, int partition) const;

  // Adds a consumer (with its permits already set); a broker_error Status when the type rules
  // refuse it. Delivers what it may receive at once.
  Status attach(std::unique_ptr<ConsumerState> consumer, SubscriptionType type);
  // Removes a consumer; its unacknowledged messages go to the others (see the header comment).
  void detach(std::uint64_t consumerId);

  void flow(std::uint64_t consumerId, std::uint32_t permits);
  // Individual acknowledgement of `entry`; false when it already was acknowledged.
  bool acknowledge(std::int64_t entry);
  void redeliver(std::uint64_t consumerId, const std::vector<std::int64_t>& entries);
  void redeliverAll(std::uint64_t consumerId);
  // Everything from `position` on becomes unread and unacknowledged; consumers get onReset.
  void seek(std::int64_t position);

  // Hands out what can go now: due delayed messages, the replay queue, then unread entries.
  void dispatch();
  // Tells consumers once when the topic is terminated and nothing is left to acknowledge.
  void checkEnded();
  // The topic is going away: cancels the timer; later timer callbacks do nothing.
  void close();

  // Called on the clock's thread, with the topic's mutex held, when the delivery timer fires.
  void onTimer(std::uint64_t generation);

  // ---- transactions (Pulsar's pending-ack handle)
  // Acknowledges `entry` in the open transaction `id`: held until it ends. transaction_conflict
  // when the entry was acknowledged before or is pending in a transaction (the text says which,
  // for the caller to put after what was asked).
  Status acknowledgeInTransaction(std::int64_t entry, const TxnId& id);
  // `id` ended. Committed: what it acknowledged here is acknowledged. Aborted: delivered again —
  // Shared and Key_Shared to any consumer with the redelivery count raised, Exclusive and
  // Failover by a rewind (the active consumer gets onReset).
  void endTransaction(const TxnId& id, bool commit);
  // Entries of an aborted transaction: they count as acknowledged, so they are never delivered.
  void acknowledgeAborted(const std::vector<std::int64_t>& entries);

 private:
  bool singleActive() const;
  bool tracksRedeliveries() const;  // Shared and Key_Shared
  ConsumerState* find(std::uint64_t consumerId) const;
  void consumersChanged();
  void deliver(std::int64_t entry, ConsumerState& to);
  // The consumer's queue is dropped (onReset): its permits start again at its queue size.
  void reset(ConsumerState& consumer);
  // Every message pending on `consumerId` goes to the replay queue with its count raised.
  void returnPending(std::uint64_t consumerId);
  void goIdle();
  void armTimer();
  // After the cursor (re)started at its mark-delete position: the topic's aborted entries count
  // as acknowledged, and acknowledgements of open transactions hold their entries again.
  void restoreTransactionState();
  // Entries an aborted transaction acknowledged here go back to the consumers.
  void release(const std::vector<std::int64_t>& entries);

  Topic& topic_;
  std::string name_;
  bool durable_;
  Cursor cursor_;
  std::optional<SubscriptionType> type_;                   // of the attached consumers
  std::vector<std::unique_ptr<ConsumerState>> consumers_;  // in the order they connected
  std::unique_ptr<Dispatcher> dispatcher_;                 // set while consumers are attached
  DelayedIndex delayed_;
  DeliveryTimer timer_;
  std::map<std::int64_t, TxnId> txnAcks_;  // entries held by open transactions
  bool closed_ = false;
};

}  // namespace reconsume::detail::embedded
