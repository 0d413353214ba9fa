#include "embedded/subscription.hpp"

#include <algorithm>

#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {
namespace {

const char* typeName(SubscriptionType type) {
  switch (type) {
    case SubscriptionType::exclusive:
      return "Exclusive";
    case SubscriptionType::shared:
      return "Shared";
    case SubscriptionType::failover:
      return "Failover";
    case SubscriptionType::keyShared:
      return "Key_Shared";
  }
  return "unknown";
}

}  // namespace

Subscription::Subscription(Topic& topic, std::string name, bool durable, std::int64_t start)
    : topic_(topic),
      name_(std::move(name)),
      durable_(durable),
      cursor_(start),
      timer_(topic.clock()) {
  restoreTransactionState();
}

Subscription::~Subscription() = default;

std::int64_t Subscription::backlog() const {
  return cursor_.backlog(topic_.ledger().end());
}

SubscriptionCursor Subscription::acknowledged(std::int64_t ledgerId, int partition) const {
  SubscriptionCursor out;
  out.markDeletePosition = MessageId(ledgerId, cursor_.markDelete() - 1, partition);
  // Runs of acknowledged slots beyond the mark-delete position become (before..last] ranges.
  std::optional<std::int64_t> runStart;
  std::int64_t last = cursor_.markDelete() - 1;
  auto closeRun = [&] {
    if (!runStart) return;
    out.acknowledgedRanges.push_back(
        {MessageId(ledgerId, *runStart - 1, partition), MessageId(ledgerId, last, partition)});
    runStart.reset();
  };
  cursor_.forEachSlot([&](std::int64_t entry, const EntrySlot& slot) {
    if (slot.state == EntryState::acked) {
      if (!runStart) runStart = entry;
      last = entry;
    } else {
      closeRun();
    }
  });
  closeRun();
  return out;
}

bool Subscription::singleActive() const {
  return type_ == SubscriptionType::exclusive || type_ == SubscriptionType::failover;
}

bool Subscription::tracksRedeliveries() const {
  return type_ == SubscriptionType::shared || type_ == SubscriptionType::keyShared;
}

ConsumerState* Subscription::find(std::uint64_t consumerId) const {
  for (const auto& consumer : consumers_) {
    if (consumer->id == consumerId) return consumer.get();
  }
  return nullptr;
}

void Subscription::consumersChanged() {
  std::vector<ConsumerState*> views;
  views.reserve(consumers_.size());
  for (const auto& consumer : consumers_) views.push_back(consumer.get());
  dispatcher_->consumersChanged(views);
}

Status Subscription::attach(std::unique_ptr<ConsumerState> consumer, SubscriptionType type) {
  if (!consumers_.empty()) {
    if (type != *type_) {
      return Status(errc::broker_error, std::string("Subscription '") + name_ + "' of topic '" +
                                            topic_.name() + "' is of different type: it is " +
                                            typeName(*type_) + ", the consumer asked for " +
                                            typeName(type));
    }
    if (type == SubscriptionType::exclusive) {
      return Status(errc::broker_error, "Exclusive subscription '" + name_ + "' of topic '" +
                                            topic_.name() + "' already has a consumer ('" +
                                            consumers_.front()->name + "')");
    }
  } else {
    type_ = type;
    dispatcher_ = makeDispatcher(type, topic_.name(), topic_.partition(), cursor_, topic_.ledger());
  }
  consumers_.push_back(std::move(consumer));
  auto* before = dispatcher_->active();
  consumersChanged();
  // Failover: a consumer joining may take over (failover_choice.hpp); it starts from the oldest
  // unacknowledged message, as after Pulsar's rewind.
  if (before != nullptr && dispatcher_->active() != before) cursor_.rewind(false);
  dispatch();
  checkEnded();
  return {};
}

void Subscription::detach(std::uint64_t consumerId) {
  auto found = std::find_if(consumers_.begin(), consumers_.end(),
                            [&](const auto& c) { return c->id == consumerId; });
  if (found == consumers_.end()) return;
  auto gone = std::move(*found);
  consumers_.erase(found);
  if (consumers_.empty()) {
    goIdle();
    return;
  }
  if (singleActive()) {
    auto* before = dispatcher_->active();
    consumersChanged();
    if (dispatcher_->active() != before) cursor_.rewind(false);
  } else {
    // Mark first, queue after the dispatcher knows the new set of consumers (Key_Shared queues
    // per owner). As on Pulsar, a consumer leaving does not raise the redelivery count.
    std::vector<std::int64_t> returned;
    cursor_.forEachSlot([&](std::int64_t entry, EntrySlot& slot) {
      if (slot.state == EntryState::pending && slot.owner == consumerId) {
        slot.state = EntryState::replay;
        returned.push_back(entry);
      }
    });
    consumersChanged();
    for (auto entry : returned) dispatcher_->addReplay(entry);
  }
  dispatch();
}

void Subscription::goIdle() {
  cursor_.rewind(true);
  delayed_.clear();
  timer_.cancel();
  dispatcher_.reset();
  type_.reset();
}

void Subscription::flow(std::uint64_t consumerId, std::uint32_t permits) {
  auto* consumer = find(consumerId);
  if (consumer == nullptr || permits == 0) return;
  consumer->permits += permits;
  dispatch();
}

bool Subscription::acknowledge(std::int64_t entry) {
  // Pulsar does not check a plain acknowledgement against pending ones: it simply applies.
  if (!txnAcks_.empty()) txnAcks_.erase(entry);
  // Asked before: this acknowledgement may be the one a draining key waited for.
  const bool waiting = dispatcher_ && dispatcher_->waitsForAcknowledgements();
  if (!cursor_.acknowledge(entry)) return false;
  checkEnded();
  if (waiting) dispatch();
  return true;
}

void Subscription::reset(ConsumerState& consumer) {
  consumer.sink->onReset(topic_.name());
  consumer.permits = std::max(0, consumer.receiverQueueSize);
}

void Subscription::redeliver(std::uint64_t consumerId, const std::vector<std::int64_t>& entries) {
  auto* consumer = find(consumerId);
  if (consumer == nullptr) return;
  if (singleActive()) {
    // Pulsar cannot redeliver single messages here without breaking order: all of them go again.
    redeliverAll(consumerId);
    return;
  }
  bool any = false;
  for (auto entry : entries) {
    if (entry < cursor_.markDelete()) continue;
    auto& slot = cursor_.slot(entry);
    if (slot.state != EntryState::pending || slot.owner != consumerId) continue;
    slot.state = EntryState::replay;
    ++slot.redeliveries;
    dispatcher_->addReplay(entry);
    any = true;
  }
  if (any) dispatch();
}

void Subscription::redeliverAll(std::uint64_t consumerId) {
  auto* consumer = find(consumerId);
  if (consumer == nullptr) return;
  if (singleActive()) {
    if (dispatcher_->active() != consumer) return;  // Pulsar ignores a standby consumer's request
    reset(*consumer);
    cursor_.rewind(false);
  } else {
    reset(*consumer);
    returnPending(consumerId);
  }
  dispatch();
}

void Subscription::returnPending(std::uint64_t consumerId) {
  cursor_.forEachSlot([&](std::int64_t entry, EntrySlot& slot) {
    if (slot.state == EntryState::pending && slot.owner == consumerId) {
      slot.state = EntryState::replay;
      ++slot.redeliveries;
      dispatcher_->addReplay(entry);
    }
  });
}

void Subscription::seek(std::int64_t position) {
  cursor_.resetTo(position);
  restoreTransactionState();
  delayed_.clear();
  timer_.cancel();
  if (dispatcher_) dispatcher_->clearReplay();
  for (auto& consumer : consumers_) {
    consumer->endedNotified = false;
    reset(*consumer);
  }
  dispatch();
  checkEnded();
}

void Subscription::deliver(std::int64_t entry, ConsumerState& to) {
  auto& slot = cursor_.slot(entry);
  const auto& stored = topic_.ledger().at(entry).data;
  std::shared_ptr<MessageData> message = stored;
  if (slot.redeliveries > 0 && tracksRedeliveries()) {
    // The only copy on the delivery path: the stored message is shared and never modified.
    message = std::make_shared<MessageData>(*stored);
    message->redeliveryCount = static_cast<int>(slot.redeliveries);
  }
  slot.state = EntryState::pending;
  slot.owner = to.id;
  --to.permits;
  to.sink->onMessage(std::move(message));
  if (!durable_) acknowledge(entry);
}

void Subscription::dispatch() {
  if (consumers_.empty() || closed_) return;
  const bool delays = tracksRedeliveries();  // Shared and Key_Shared hold delayed messages
  std::int64_t nowMs = -1;
  auto now = [&] {
    if (nowMs < 0) nowMs = topic_.nowMs();
    return nowMs;
  };

  if (!delayed_.empty() && delayed_.earliestDueMs() <= now()) {
    delayed_.popDue(now(), [&](std::int64_t entry) {
      if (cursor_.state(entry) != EntryState::delayed) return;  // acknowledged meanwhile
      cursor_.slot(entry).state = EntryState::replay;
      dispatcher_->addReplay(entry);
    });
  }

  std::int64_t entry = 0;
  ConsumerState* to = nullptr;
  while (dispatcher_->nextReplay(entry, to)) deliver(entry, *to);

  const auto& ledger = topic_.ledger();
  const auto limit = topic_.readLimit();  // open transactions hold back what follows them
  while (cursor_.readPosition() < limit) {
    entry = cursor_.readPosition();
    auto& slot = cursor_.slot(entry);
    if (slot.state != EntryState::unread) {  // acknowledged before it was read
      cursor_.advanceRead();
      continue;
    }
    auto dueMs = ledger.at(entry).deliverAtMs;
    if (delays && dueMs > 0 && dueMs > now()) {
      slot.state = EntryState::delayed;
      delayed_.add(dueMs, entry);
      cursor_.advanceRead();
      continue;
    }
    auto pick = dispatcher_->pickNew(entry, to);
    if (pick == Dispatcher::Pick::stop) break;
    cursor_.advanceRead();
    if (pick == Dispatcher::Pick::queued) {
      slot.state = EntryState::replay;
      bool anyPermits = std::any_of(consumers_.begin(), consumers_.end(),
                                    [](const auto& c) { return c->permits > 0; });
      if (!anyPermits) break;
      continue;
    }
    deliver(entry, *to);
  }
  armTimer();
}

void Subscription::armTimer() {
  if (delayed_.empty()) return;
  timer_.armBy(delayed_.earliestDueMs(), [this](std::uint64_t generation) {
    return [topic = topic_.weak_from_this(), self = weak_from_this(), generation] {
      if (auto owner = topic.lock()) owner->onTimer(self, generation);
    };
  });
}

void Subscription::onTimer(std::uint64_t generation) {
  if (closed_ || !timer_.fired(generation)) return;
  dispatch();
}

void Subscription::checkEnded() {
  if (!topic_.terminated() || consumers_.empty() || backlog() != 0) return;
  for (auto& consumer : consumers_) {
    if (consumer->endedNotified) continue;
    consumer->endedNotified = true;
    consumer->sink->onEnded(
        topic_.name(), Status(errc::broker_error, "topic '" + topic_.name() +
                                                      "' is terminated and subscription '" + name_ +
                                                      "' has read all of it"));
  }
}

void Subscription::close() {
  closed_ = true;
  timer_.cancel();
}

}  // namespace reconsume::detail::embedded
