#include "embedded/topic.hpp"

#include <algorithm>
#include <limits>

#include "common/topic_name.hpp"
#include "embedded/topic_lock.hpp"

namespace reconsume::detail::embedded {
namespace {

std::int64_t floorMs(Clock::time_point t) {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// A due time is never rounded down: a message is not delivered before the instant it names.
std::int64_t ceilMs(Clock::time_point t) {
  return std::chrono::ceil<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

Topic::Topic(std::string name, std::int64_t ledgerId, std::shared_ptr<Clock> clock,
             BrokerConfig config)
    : name_(std::move(name)),
      sharedName_(name_),
      partition_(TopicName::parse(name_).partition()),
      clock_(std::move(clock)),
      config_(config),
      ledger_(ledgerId) {}

Topic::~Topic() {
  for (auto& [name, subscription] : subscriptions_) subscription->close();
}

std::int64_t Topic::nowMs() const {
  return floorMs(clock_->now());
}

// ---- producers ------------------------------------------------------------------------------

Status Topic::addProducer(const ProducerState& producer,
                          const std::optional<std::string>& initialSubscription) {
  TopicLock lock(mutex_);
  if (terminated_) {
    return Status(errc::broker_error, "topic " + name_ + " is terminated: no producer may attach");
  }
  if (!producers_.insert(producer.name).second) {
    return Status(errc::broker_error, "a producer named '" + producer.name +
                                          "' is already connected to topic " + name_);
  }
  if (initialSubscription && !subscriptions_.count(*initialSubscription)) {
    subscriptions_.emplace(
        *initialSubscription,
        std::make_shared<Subscription>(*this, *initialSubscription, true, ledger_.first()));
  }
  return {};
}

void Topic::closeProducer(ProducerState& producer) {
  TopicLock lock(mutex_);
  if (producer.closed) return;
  producer.closed = true;
  producers_.erase(producer.name);
}

Status Topic::publish(std::shared_ptr<MessageData> message, ProducerState& producer,
                      std::optional<std::chrono::system_clock::time_point> deliverAt,
                      std::optional<std::chrono::milliseconds> deliverAfter, MessageId& id,
                      const TxnRef* txn) {
  TopicLock lock(mutex_);
  if (producer.closed) {
    return Status(errc::closed,
                  "producer '" + producer.name + "' of topic " + name_ + " is closed");
  }
  if (terminated_) return Status(errc::broker_error, "topic " + name_ + " is terminated");
  if (txn) {
    // Joined under this lock: the transaction cannot end between the check and the append.
    if (auto status = txn->coordinator.join(txn->id, *this); !status.ok()) {
      status.message = "cannot publish to topic " + name_ + " in transaction " +
                       txn->id.toString() + ": " + status.message;
      return status;
    }
    txns_.add(txn->id, ledger_.end());
  }
  auto now = clock_->now();
  auto publishMs = floorMs(now);
  std::int64_t dueMs = 0;
  if (deliverAt) {
    dueMs = ceilMs(*deliverAt);
  } else if (deliverAfter) {
    dueMs = ceilMs(now + *deliverAfter);
  }
  id = MessageId(ledger_.id(), ledger_.end(), partition_);
  message->id = id;
  message->publishTimeMs = static_cast<std::uint64_t>(publishMs);
  if (dueMs > 0) message->deliverAtMs = static_cast<std::uint64_t>(dueMs);
  message->sequenceId = producer.nextSequenceId++;
  ledger_.append({std::move(message), dueMs});
  for (auto& [name, subscription] : subscriptions_) subscription->dispatch();
  maybeTrim();
  return {};
}

// ---- consumers ------------------------------------------------------------------------------

Status Topic::subscribe(const client::SubscribeSpec& spec, std::unique_ptr<ConsumerState> consumer,
                        std::shared_ptr<Subscription>& subscription) {
  TopicLock lock(mutex_);
  auto found = subscriptions_.find(spec.subscription);
  bool created = false;
  if (!spec.durable) {
    if (found != subscriptions_.end()) {
      return Status(errc::broker_error,
                    "subscription '" + spec.subscription + "' already exists on topic " + name_);
    }
    std::int64_t start =
        spec.startMessageId
            ? positionOf(*spec.startMessageId, spec.startMessageIdInclusive)
            : (spec.initialPosition == InitialPosition::earliest ? ledger_.first() : ledger_.end());
    subscription = std::make_shared<Subscription>(*this, spec.subscription, false, start);
    created = true;
  } else if (found == subscriptions_.end()) {
    auto start =
        spec.initialPosition == InitialPosition::earliest ? ledger_.first() : ledger_.end();
    subscription = std::make_shared<Subscription>(*this, spec.subscription, true, start);
    created = true;
  } else {
    subscription = found->second;
  }
  if (created) subscriptions_.emplace(spec.subscription, subscription);
  auto status = subscription->attach(std::move(consumer), spec.type);
  if (!status.ok()) {
    if (created) subscriptions_.erase(spec.subscription);
    subscription.reset();
  }
  return status;
}

void Topic::unsubscribe(const std::shared_ptr<Subscription>& subscription,
                        std::uint64_t consumerId) {
  TopicLock lock(mutex_);
  subscription->detach(consumerId);
  if (!subscription->durable() && !subscription->hasConsumers()) {
    auto found = subscriptions_.find(subscription->name());
    if (found != subscriptions_.end() && found->second == subscription) {
      subscription->close();
      subscriptions_.erase(found);
    }
  }
}

void Topic::flow(Subscription& subscription, std::uint64_t consumerId, std::uint32_t permits) {
  TopicLock lock(mutex_);
  subscription.flow(consumerId, permits);
  maybeTrim();  // a reader acknowledges as it reads
}

void Topic::acknowledge(Subscription& subscription, const MessageId& id) {
  TopicLock lock(mutex_);
  auto entry = entryOf(id);
  if (entry && subscription.acknowledge(*entry)) maybeTrim();
}

void Topic::redeliver(Subscription& subscription, std::uint64_t consumerId,
                      const std::vector<MessageId>& ids) {
  TopicLock lock(mutex_);
  std::vector<std::int64_t> entries;
  entries.reserve(ids.size());
  for (const auto& id : ids) {
    if (auto entry = entryOf(id)) entries.push_back(*entry);
  }
  subscription.redeliver(consumerId, entries);
}

void Topic::redeliverAll(Subscription& subscription, std::uint64_t consumerId) {
  TopicLock lock(mutex_);
  subscription.redeliverAll(consumerId);
}

void Topic::seek(Subscription& subscription, const MessageId& id) {
  TopicLock lock(mutex_);
  subscription.seek(positionOf(id, false));
}

MessageId Topic::lastMessageId() const {
  TopicLock lock(mutex_);
  // Pulsar answers the last dispatchable position: below the read limit, not aborted (so a
  // reader never waits for a message it is told is there).
  for (auto entry = readLimit() - 1; entry >= ledger_.first(); --entry) {
    if (!txns_.aborted(entry)) return MessageId(ledger_.id(), entry, partition_);
  }
  if (ledger_.first() == 0) return MessageId::earliest();
  return MessageId(ledger_.id(), ledger_.first() - 1, partition_);
}

std::optional<std::int64_t> Topic::entryOf(const MessageId& id) const {
  if (id.ledger() != ledger_.id() || id.entry() < ledger_.first() || id.entry() >= ledger_.end()) {
    return std::nullopt;
  }
  return id.entry();
}

std::int64_t Topic::positionOf(const MessageId& id, bool inclusive) const {
  auto first = ledger_.first();
  auto end = ledger_.end();
  if (id.ledger() == MessageId::latest().ledger()) {
    // Pulsar: latest, inclusive, starts at the last message.
    return inclusive && end > first ? end - 1 : end;
  }
  if (id.ledger() < ledger_.id()) return first;  // also MessageId::earliest()
  if (id.ledger() > ledger_.id()) return end;
  auto position = inclusive ? id.entry() : id.entry() + 1;
  return std::clamp(position, first, end);
}

void Topic::maybeTrim() {
  const auto retained = config_.retainedAcknowledgedEntries;
  if (subscriptions_.empty() || ledger_.end() - ledger_.first() <= retained) return;
  auto oldest = std::numeric_limits<std::int64_t>::max();
  for (const auto& [name, subscription] : subscriptions_) {
    oldest = std::min(oldest, subscription->markDelete());
  }
  if (oldest - ledger_.first() > retained) {
    ledger_.trimBefore(oldest - retained);
    txns_.forgetBefore(ledger_.first());
  }
}

// ---- admin and timers -----------------------------------------------------------------------

void Topic::terminate() {
  TopicLock lock(mutex_);
  terminated_ = true;
  for (auto& [name, subscription] : subscriptions_) subscription->checkEnded();
}

std::pair<std::size_t, std::size_t> Topic::attachments() const {
  TopicLock lock(mutex_);
  std::size_t consumers = 0;
  for (const auto& [name, subscription] : subscriptions_) {
    consumers += subscription->consumerCount();
  }
  return {producers_.size(), consumers};
}

std::vector<SubscriptionStats> Topic::subscriptionStats() const {
  TopicLock lock(mutex_);
  std::vector<SubscriptionStats> stats;
  for (const auto& [name, subscription] : subscriptions_) {
    stats.push_back({name, subscription->backlog()});
  }
  return stats;
}

Status Topic::cursor(const std::string& subscription, SubscriptionCursor& out) const {
  TopicLock lock(mutex_);
  auto found = subscriptions_.find(subscription);
  if (found == subscriptions_.end()) {
    return Status(errc::not_found,
                  "topic " + name_ + " has no subscription '" + subscription + "'");
  }
  out = found->second->acknowledged(ledger_.id(), partition_);
  return {};
}

void Topic::markDeleted() {
  TopicLock lock(mutex_);
  deleted_ = true;
  for (auto& [name, subscription] : subscriptions_) subscription->close();
}

void Topic::onTimer(const std::weak_ptr<Subscription>& subscription, std::uint64_t generation) {
  TopicLock lock(mutex_);
  if (deleted_) return;
  if (auto live = subscription.lock()) live->onTimer(generation);
}

}  // namespace reconsume::detail::embedded
