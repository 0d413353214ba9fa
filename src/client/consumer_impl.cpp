#include "client/consumer_impl.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

#include "common/duration.hpp"
#include "common/gather.hpp"
#include "common/message_order.hpp"
#include "common/random.hpp"
#include "common/topic_name.hpp"

namespace reconsume::detail::client {

using namespace std::chrono_literals;

namespace {

// A RedeliveryBackoff is the application's code: whatever it answers, the wait stays within
// what the steady clock can add (a negative answer is "at once").
std::chrono::milliseconds boundedBackoff(std::chrono::milliseconds wait) {
  return std::clamp(wait, std::chrono::milliseconds(0), kLongestDuration);
}

}  // namespace

// Routes what one backend consumer delivers into the shared queue, tagged with its slot. Holds
// the consumer weakly: the backend keeps the sink alive, the consumer keeps the backend alive.
class ConsumerImpl::Sink final : public MessageSink {
 public:
  Sink(std::weak_ptr<ConsumerImpl> owner, std::size_t slot)
      : owner_(std::move(owner)), slot_(slot) {}

  void onMessage(std::shared_ptr<MessageData> message) override {
    auto owner = owner_.lock();
    if (!owner) return;
    {
      auto held = owner->heldAcks();
      if (!forApplication(owner, held, message)) return;
    }
    owner->queue_.push({std::move(message), slot_});
  }
  void onMessages(std::vector<std::shared_ptr<MessageData>>& messages) override {
    auto owner = owner_.lock();
    if (!owner) return;
    // Those not for the application are taken out, the others keep their order.
    {
      auto held = owner->heldAcks();
      auto kept = messages.begin();
      for (auto& message : messages) {
        if (forApplication(owner, held, message)) *kept++ = std::move(message);
      }
      messages.erase(kept, messages.end());
    }
    owner->queue_.pushAll(slot_, messages);
  }
  void onReset(const std::string&) override {
    if (auto owner = owner_.lock()) {
      owner->queue_.drop(slot_);
      owner->slots_[slot_]->taken = 0;
    }
  }
  void onEnded(const std::string& topic, const Status& why) override {
    if (auto owner = owner_.lock()) {
      // Logged on the io executor: a backend may tell a sink this under its own locks (the
      // embedded broker does, in the call that terminated the topic), and the Logger is the
      // application's, which never runs while a lock of the library is held.
      boost::asio::post(owner->client_->io(),
                        [owner, text = "consumer of " + topic + " on subscription " +
                                       owner->spec_.options.subscription + " ended: " +
                                       why.message] { owner->client_->log().warn(text); });
    }
  }

 private:
  // False when `message` goes elsewhere than to the receive queue (it is moved from then).
  bool forApplication(const std::shared_ptr<ConsumerImpl>& owner,
                      const std::optional<AckGrouper::HeldView>& held,
                      std::shared_ptr<MessageData>& message) const {
    if (held && held->contains(slot_, message->id)) {
      // Delivered again (a reconnection) while its acknowledgement waits in the group: dropped,
      // its permit given back as if the application had taken it. Checked first: over the
      // redelivery limit by then or not, it is acknowledged, not poison.
      boost::asio::post(owner->client_->io(), [owner, slot = slot_] { owner->taken(slot); });
      return false;
    }
    if (owner->poison_.overLimit(message->redeliveryCount)) {
      // Delivered more than maxRedeliverCount times: not for the application. Diverted on the
      // io executor, since a sink may not call back into the backend.
      boost::asio::post(owner->client_->io(), [owner, slot = slot_, message = std::move(message)] {
        owner->divert(slot, Message(message));
      });
      return false;
    }
    return true;
  }

  std::weak_ptr<ConsumerImpl> owner_;
  std::size_t slot_;
};

ConsumerSpec ConsumerSpec::of(const ConsumerOptions& options) {
  ConsumerSpec spec;
  for (const auto& topic : options.topics) {
    spec.topics.push_back({topic, options.subscriptionType, options.initialPosition});
  }
  spec.options = options;
  return spec;
}

ConsumerImpl::ConsumerImpl(std::shared_ptr<ClientImpl> client, ConsumerSpec spec)
    : client_(std::move(client)), spec_(std::move(spec)), poison_(spec_.options.maxRedeliverCount) {
  // Named, as the Java client names its consumers: Pulsar picks a Failover subscription's active
  // consumer by name, and among nameless ones the newest would take over each time one joins.
  // One name for all the topics and partitions of this consumer, kept across reconnections.
  if (spec_.options.consumerName.empty()) spec_.options.consumerName = randomHex(10);
  flowThreshold_ = static_cast<std::uint32_t>(std::max(1, spec_.options.receiverQueueSize / 2));
  for (const auto& topic : spec_.topics) topicNames_.push_back(topic.topic);
}

ConsumerImpl::~ConsumerImpl() {
  // Dropped without close(): async receives still waiting (which hold the consumer weakly)
  // complete with closed rather than never.
  queue_.close(Status(errc::closed, "the consumer of subscription '" + spec_.options.subscription +
                                        "' was dropped without close()"));
}

void ConsumerImpl::create(const std::shared_ptr<ClientImpl>& client, ConsumerSpec spec,
                          Callback<std::shared_ptr<ConsumerImpl>> done) {
  std::shared_ptr<ConsumerImpl> consumer(new ConsumerImpl(client, std::move(spec)));

  auto redeliver = [weak = std::weak_ptr<ConsumerImpl>(consumer)](std::size_t slot,
                                                                  std::vector<MessageId> ids) {
    if (auto self = weak.lock()) self->redeliver(slot, std::move(ids));
  };
  consumer->negativeAcks_ = std::make_shared<RedeliveryScheduler>(client->clock(), redeliver);
  consumer->ackTimeouts_ = std::make_shared<RedeliveryScheduler>(client->clock(), redeliver);
  consumer->startAckGroup();

  // First the partitions of every topic, then one subscription per topic or partition.
  auto topics = consumer->spec_.topics;
  auto lookups = Gather<int>::start(
      topics.size(), [consumer, topics, done](const Status& status, std::vector<int> counts) {
        if (!status.ok()) return done(status, nullptr);
        std::vector<SubscribeSpec> specs;
        for (std::size_t i = 0; i < topics.size(); ++i) {
          SubscribeSpec spec;
          spec.subscription = consumer->spec_.options.subscription;
          spec.type = topics[i].type;
          spec.initialPosition = topics[i].initialPosition;
          spec.consumerName = consumer->spec_.options.consumerName;
          spec.receiverQueueSize = consumer->spec_.options.receiverQueueSize;
          spec.durable = consumer->spec_.durable;
          spec.startMessageId = consumer->spec_.startMessageId;
          spec.startMessageIdInclusive = consumer->spec_.startMessageIdInclusive;
          spec.batchIndexAcks = consumer->spec_.options.batchIndexAcknowledgement;
          if (counts[i] == 0) {
            spec.topic = topics[i].topic;
            specs.push_back(spec);
            continue;
          }
          auto base = TopicName::parse(topics[i].topic);
          for (int p = 0; p < counts[i]; ++p) {
            spec.topic = base.partitionAt(p).toString();
            specs.push_back(spec);
          }
        }
        consumer->limitReceiverQueues(specs);
        consumer->subscribeAll(std::move(specs), [consumer, done](const Status& status) {
          if (!status.ok()) return done(status, nullptr);
          if (auto tracked = consumer->client_->track(consumer); !tracked.ok()) {
            consumer->close([](const Status&) {});
            return done(tracked, nullptr);
          }
          done({}, consumer);
        });
      });
  for (std::size_t i = 0; i < topics.size(); ++i) {
    client->backend().partitions(topics[i].topic, lookups->slot(i));
  }
}

void ConsumerImpl::limitReceiverQueues(std::vector<SubscribeSpec>& specs) {
  // As the Java client: with several topics or partitions, each gets its share of
  // maxTotalReceiverQueueSizeAcrossPartitions (at least 1), so the messages the broker pushes
  // ahead of receive() stay bounded however many partitions there are.
  if (specs.size() < 2) return;
  auto share =
      spec_.options.maxTotalReceiverQueueSizeAcrossPartitions / static_cast<int>(specs.size());
  auto perTopic = std::max(1, std::min(spec_.options.receiverQueueSize, share));
  for (auto& spec : specs) spec.receiverQueueSize = perTopic;
  // Before any subscription exists: no flow runs yet.
  flowThreshold_ = static_cast<std::uint32_t>(std::max(1, perTopic / 2));
}

void ConsumerImpl::subscribeAll(std::vector<SubscribeSpec> specs, Callback<> done) {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto slot = std::make_unique<Slot>();
    slot->topic = specs[i].topic;
    if (spec_.durable) slot->metrics = metricsFor(slot->topic);
    slotByTopic_.emplace(slot->topic, i);
    slots_.push_back(std::move(slot));
  }
  auto self = shared_from_this();
  auto gather = Gather<std::shared_ptr<BackendConsumer>>::start(
      specs.size(),
      [self, done](const Status& status, std::vector<std::shared_ptr<BackendConsumer>> consumers) {
        for (std::size_t i = 0; i < consumers.size(); ++i) self->slots_[i]->backend = consumers[i];
        if (status.ok()) return done({});
        // Undo the subscriptions that succeeded; report the first failure.
        self->close([done, status](const Status&) { done(status); });
      });
  for (std::size_t i = 0; i < specs.size(); ++i) {
    client_->backend().subscribe(specs[i], std::make_shared<Sink>(self, i), gather->slot(i));
  }
}

Status ConsumerImpl::closedStatus() const {
  return Status(errc::closed,
                "consumer of subscription '" + spec_.options.subscription + "' is closed");
}

void ConsumerImpl::taken(std::size_t index) {
  auto& slot = *slots_[index];
  if (++slot.taken >= flowThreshold_) {
    if (auto permits = slot.taken.exchange(0); permits > 0 && slot.backend) {
      slot.backend->flow(permits);
    }
  }
}

void ConsumerImpl::divert(std::size_t slot, const Message& message) {
  if (closed_) return;
  taken(slot);  // its permit, as if the application had taken it
  if (spec_.poisonSink) spec_.poisonSink->onPoison(message, shared_from_this());
}

std::shared_ptr<const ConsumerImpl::SlotMetrics> ConsumerImpl::metricsFor(
    const std::string& topic) {
  // The topic a partition belongs to, and the partition as a label of its own: the series of a
  // partitioned topic add up to the topic's.
  auto name = TopicName::parse(topic);
  MetricLabels labels = {{metrics::kDestination, name.base().toString()},
                         {metrics::kGroup, spec_.options.subscription}};
  if (name.partition() >= 0) {
    labels.emplace_back(metrics::kPartition, std::to_string(name.partition()));
  }
  auto& registry = client_->metrics();
  auto ack = labels;
  ack.emplace_back(metrics::kOperation, "ack");
  return std::make_shared<const SlotMetrics>(
      SlotMetrics{registry.counter(metrics::kConsumed, labels),
                  registry.counter(metrics::kAcknowledged, labels),
                  registry.counter(metrics::kNegativelyAcked, labels),
                  registry.histogram(metrics::kDeliveryLateness, labels),
                  registry.histogram(metrics::kOperationDuration, ack)});
}

void ConsumerImpl::recordLateness(const Slot& slot, const MessageData& data) {
  if (!data.deliverAtMs || !slot.metrics) return;
  auto due = std::chrono::system_clock::time_point(std::chrono::milliseconds(*data.deliverAtMs));
  std::chrono::duration<double> late = client_->clock()->now() - due;
  slot.metrics->lateness->record(late.count());
}

Message ConsumerImpl::handOut(ReceiveQueue::Item item) {
  auto& slot = *slots_[item.slot];
  taken(item.slot);
  const auto& data = *item.message;
  if (slot.metrics) {
    slot.metrics->consumed->add();
    recordLateness(slot, data);
  }
  if (spec_.options.ackTimeout.count() > 0 && spec_.durable) {
    auto wait = spec_.options.ackTimeout;
    if (spec_.options.ackTimeoutRedeliveryBackoff) {
      wait += boundedBackoff(spec_.options.ackTimeoutRedeliveryBackoff->next(data.redeliveryCount));
    }
    ackTimeouts_->add(item.slot, data.id, client_->clock()->steadyNow() + wait);
  }
  if (!spec_.durable) {
    std::lock_guard lock(positionMutex_);
    slot.lastHandedOut = data.id;
  }
  Message message(std::move(item.message));
  poison_.handedOut(item.slot, message);
  return message;
}

std::optional<Message> ConsumerImpl::receive(std::optional<std::chrono::nanoseconds> timeout) {
  if (closed_) closedStatus().raise();
  std::optional<ReceiveQueue::Item> item;
  queue_.pop(timeout, item).raiseIfFailed();
  if (!item) return std::nullopt;
  return handOut(std::move(*item));
}

ReceiveQueue::Ticket ConsumerImpl::waitForItem(ReceiveQueue::Waiter waiter) {
  if (closed_) {
    waiter(closedStatus(), {});
    return 0;
  }
  return queue_.popAsync(std::move(waiter));
}

Status ConsumerImpl::slotOf(const Message& message, std::size_t& slot) const {
  if (!message) return Status(errc::invalid_argument, "the message is empty");
  auto found = slotByTopic_.find(message.topic());
  if (found == slotByTopic_.end()) {
    return Status(errc::invalid_argument,
                  "message " + message.id().toString() + " of topic '" + message.topic() +
                      "' was not received by this consumer (subscription '" +
                      spec_.options.subscription + "')");
  }
  slot = found->second;
  return {};
}

Status ConsumerImpl::settled(const Message& message, std::size_t& slot) {
  if (closed_) return closedStatus();
  if (auto status = slotOf(message, slot); !status.ok()) return status;
  ackTimeouts_->remove(slot, message.id());
  negativeAcks_->remove(slot, message.id());
  poison_.forget(slot, message.id());
  return {};
}

Status ConsumerImpl::negativeAcknowledge(const Message& message) {
  if (closed_) return closedStatus();
  std::size_t slot = 0;
  if (auto status = slotOf(message, slot); !status.ok()) return status;
  ackTimeouts_->remove(slot, message.id());
  auto wait = spec_.options.negativeAckRedeliveryDelay;
  if (const auto& backoff = spec_.options.negativeAckRedeliveryBackoff) {
    wait = std::max<std::chrono::milliseconds>(
        100ms, boundedBackoff(backoff->next(message.redeliveryCount())));
  }
  negativeAcks_->add(slot, message.id(), client_->clock()->steadyNow() + wait);
  if (const auto& metrics = slots_[slot]->metrics) metrics->negativelyAcknowledged->add();
  return {};
}

void ConsumerImpl::redeliver(std::size_t slot, std::vector<MessageId> ids) {
  if (closed_ || !slots_[slot]->backend) return;
  // Remembered poison messages go to the dead-letter topic instead of back to the subscription.
  for (const auto& message : poison_.take(slot, ids)) {
    if (spec_.poisonSink) spec_.poisonSink->onPoison(message, shared_from_this());
  }
  if (ids.empty()) return;
  // On Exclusive and Failover the broker redelivers everything unacknowledged from the first
  // one (Pulsar redelivers by id only on Shared and Key_Shared): the acknowledgements held in the
  // group go first, or it would send their messages again.
  const auto type = spec_.options.subscriptionType;
  if (ackGroup_ && (type == SubscriptionType::exclusive || type == SubscriptionType::failover)) {
    ackGroup_->flushNow();
  }
  slots_[slot]->backend->redeliver(ids);
}

void ConsumerImpl::redeliverUnacknowledged() {
  if (closed_) closedStatus().raise();
  if (ackGroup_) ackGroup_->flushNow();  // acknowledged is not unacknowledged
  ackTimeouts_->clear();
  negativeAcks_->clear();
  poison_.clear();
  for (auto& slot : slots_) {
    if (slot->backend) slot->backend->redeliverAll();
  }
}

void ConsumerImpl::seek(const MessageId& id, Callback<> done) {
  if (closed_) return done(closedStatus());
  if (slots_.size() > 1 && id != MessageId::earliest() && id != MessageId::latest()) {
    // Several partitions: message ids of one are not positions in another. As the Java client,
    // an id of a message read moves its own partition alone; any other is refused.
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (TopicName::parse(slots_[i]->topic).partition() != id.partition()) continue;
      {
        std::lock_guard lock(positionMutex_);
        slots_[i]->seekedTo = id;
        slots_[i]->lastHandedOut.reset();
      }
      queue_.drop(i);
      return slots_[i]->backend->seek(id, std::move(done));
    }
    return done(Status(errc::invalid_argument,
                       "cannot seek the reader of " + topicNames_.front() + " to " + id.toString() +
                           ": the id names none of its " + std::to_string(slots_.size()) +
                           " partitions; give the id of a message read from it, or earliest or "
                           "latest"));
  }
  {
    std::lock_guard lock(positionMutex_);
    spec_.startMessageId = id;
    spec_.startMessageIdInclusive = false;
    for (auto& slot : slots_) {
      slot->lastHandedOut.reset();
      slot->seekedTo.reset();
    }
  }
  auto finish = countDown(slots_.size(), std::move(done));
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    queue_.drop(i);
    slots_[i]->backend->seek(id, finish);
  }
}

void ConsumerImpl::hasMessageAvailable(Callback<bool> done) {
  if (closed_) return done(closedStatus(), false);
  if (queue_.size() > 0) return done({}, true);
  auto self = shared_from_this();
  auto gather = Gather<MessageId>::start(slots_.size(), [self, done](const Status& status,
                                                                     std::vector<MessageId> last) {
    if (!status.ok()) return done(status, false);
    bool available = false;
    {
      std::lock_guard lock(self->positionMutex_);  // released before `done` runs
      for (std::size_t i = 0; i < last.size() && !available; ++i) {
        if (last[i] == MessageId::earliest()) continue;  // an empty topic
        const auto& slot = *self->slots_[i];
        const auto start = slot.seekedTo
                               ? *slot.seekedTo
                               : self->spec_.startMessageId.value_or(MessageId::earliest());
        const bool inclusive = !slot.seekedTo && self->spec_.startMessageIdInclusive;
        const auto& handed = slot.lastHandedOut;
        if (handed) {
          available = comparePositions(last[i], *handed) > 0;
        } else if (start == MessageId::latest()) {
          available = inclusive;  // inclusive: the topic's last message is read first
        } else if (start == MessageId::earliest()) {
          available = true;
        } else if (start.batchIndex() < 0) {
          // An id without a batch index names its whole entry (as the reader reads it).
          const int entry = comparePositions(MessageId(last[i].ledger(), last[i].entry()), start);
          available = inclusive ? entry >= 0 : entry > 0;
        } else {
          const int order = comparePositions(last[i], start);
          available = inclusive ? order >= 0 : order > 0;
        }
      }
    }
    done({}, available);
  });
  for (std::size_t i = 0; i < slots_.size(); ++i)
    slots_[i]->backend->lastMessageId(gather->slot(i));
}

void ConsumerImpl::close(Callback<> done) {
  if (closed_.exchange(true)) return done({});
  // Held acknowledgements go out before the consumer's close, on the same connection.
  if (ackGroup_) ackGroup_->flushNow();
  queue_.close(closedStatus());
  negativeAcks_->clear();
  ackTimeouts_->clear();
  std::size_t open = 0;
  for (auto& slot : slots_) open += slot->backend ? 1 : 0;
  auto finish = countDown(open, std::move(done));
  for (auto& slot : slots_) {
    if (slot->backend) slot->backend->close(finish);
  }
}

}  // namespace reconsume::detail::client
