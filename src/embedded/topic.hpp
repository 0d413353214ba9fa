// One topic or partition of the embedded broker: its ledger, its subscriptions and the producers
// attached to it, under one mutex. Sinks of its consumers are called with that mutex held (so
// each consumer sees its messages in order); they must not call back into the broker.
// Its part in transactions (transactional publishes and acknowledgements, their end) is in
// topic_transactions.cpp.
//
// Thread safety: every public member may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/backend.hpp"
#include "embedded/broker_config.hpp"
#include "embedded/coordinator.hpp"
#include "embedded/ledger.hpp"
#include "embedded/subscription.hpp"
#include "embedded/transaction_buffer.hpp"
#include "reconsume/subscription_cursor.hpp"

namespace reconsume::detail::embedded {

// A producer as the topic sees it; guarded by the topic's mutex.
struct ProducerState {
  std::string name;
  std::uint64_t nextSequenceId{0};
  bool closed{false};
};

class Topic : public std::enable_shared_from_this<Topic> {
 public:
  Topic(std::string name, std::int64_t ledgerId, std::shared_ptr<Clock> clock, BrokerConfig config);
  ~Topic();

  const std::string& name() const { return name_; }
  // The same, shared by every message stored here.
  const SharedText& sharedName() const { return sharedName_; }
  int partition() const { return partition_; }

  // ---- producers
  // Refused (broker_error) on a terminated topic or when the name is taken. Creates
  // `initialSubscription` (durable, from the earliest message) when absent.
  Status addProducer(const ProducerState& producer,
                     const std::optional<std::string>& initialSubscription);
  void closeProducer(ProducerState& producer);
  // Stores the message (its id, publish time and sequence id are filled in here) and dispatches
  // it. `deliverAt`: when a delayed message falls due, if any. With `txn`, the message is part
  // of that open transaction (transaction_not_found otherwise): stored, but neither it nor any
  // later message is dispatched before the transaction ends.
  Status publish(std::shared_ptr<MessageData> message, ProducerState& producer,
                 std::optional<std::chrono::system_clock::time_point> deliverAt,
                 std::optional<std::chrono::milliseconds> deliverAfter, MessageId& id,
                 const TxnRef* txn = nullptr);

  // ---- consumers
  Status subscribe(const client::SubscribeSpec& spec, std::unique_ptr<ConsumerState> consumer,
                   std::shared_ptr<Subscription>& subscription);
  void unsubscribe(const std::shared_ptr<Subscription>& subscription, std::uint64_t consumerId);
  void flow(Subscription& subscription, std::uint64_t consumerId, std::uint32_t permits);
  void acknowledge(Subscription& subscription, const MessageId& id);
  // In the open transaction `txn`: the message is held until it ends. transaction_not_found
  // when it is not open; transaction_conflict when the message was acknowledged before or is
  // pending in a transaction. An id that is not a message of this topic is ignored, as above.
  Status acknowledge(Subscription& subscription, const MessageId& id, const TxnRef& txn);
  void redeliver(Subscription& subscription, std::uint64_t consumerId,
                 const std::vector<MessageId>& ids);
  void redeliverAll(Subscription& subscription, std::uint64_t consumerId);
  void seek(Subscription& subscription, const MessageId& id);
  MessageId lastMessageId() const;

  // ---- transactions (called by the coordinator, no lock held)
  // `id` ended: its messages here become visible (commit) or are dropped for good (abort).
  void endTransaction(const TxnId& id, bool commit);
  // `id` ended: what it acknowledged on `subscription` is acknowledged or delivered again.
  void endTransactionAcks(Subscription& subscription, const TxnId& id, bool commit);

  // ---- admin
  void terminate();
  // Producers and consumers attached.
  std::pair<std::size_t, std::size_t> attachments() const;
  std::vector<SubscriptionStats> subscriptionStats() const;
  // not_found when the subscription does not exist.
  Status cursor(const std::string& subscription, SubscriptionCursor& out) const;
  // The topic was deleted: its subscriptions stop their timers.
  void markDeleted();

  // ---- for subscriptions (the mutex is held)
  const Ledger& ledger() const { return ledger_; }
  // Entries from this one on are not dispatched yet (open transactions hold them back).
  std::int64_t readLimit() const { return txns_.readLimit(ledger_.end()); }
  // Entries of aborted transactions, never delivered.
  const std::set<std::int64_t>& abortedEntries() const { return txns_.abortedEntries(); }
  bool terminated() const { return terminated_; }
  std::int64_t nowMs() const;
  const std::shared_ptr<Clock>& clock() const { return clock_; }
  // Runs a subscription's timer under the mutex.
  void onTimer(const std::weak_ptr<Subscription>& subscription, std::uint64_t generation);

 private:
  // The entry of `id` if it is a stored entry of this topic.
  std::optional<std::int64_t> entryOf(const MessageId& id) const;
  // The first entry to read for a start id: after it, or at it when `inclusive`.
  std::int64_t positionOf(const MessageId& id, bool inclusive) const;
  void maybeTrim();

  mutable std::mutex mutex_;
  const std::string name_;
  const SharedText sharedName_;
  const int partition_;
  const std::shared_ptr<Clock> clock_;
  const BrokerConfig config_;
  Ledger ledger_;
  TransactionBuffer txns_;
  std::map<std::string, std::shared_ptr<Subscription>> subscriptions_;
  std::set<std::string> producers_;
  bool terminated_ = false;
  bool deleted_ = false;
};

}  // namespace reconsume::detail::embedded
