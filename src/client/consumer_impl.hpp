// The state behind a Consumer (and a Reader): one backend consumer per topic or partition, a
// receive queue merging them, flow permits handed back as the application takes messages, and
// the negative-ack and ack-timeout redelivery timers. Knows nothing of retry topics: the retry
// layer (src/retry) subscribes the retry topic as one more topic and holds the consumer.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/ack_grouper.hpp"
#include "client/backend.hpp"
#include "client/client_impl.hpp"
#include "client/poison.hpp"
#include "client/receive_queue.hpp"
#include "client/redelivery_scheduler.hpp"

namespace reconsume::detail::client {

// One topic of a consumer, with the subscription type and start position it is read with.
struct TopicSubscription {
  std::string topic;  // canonical; a partitioned topic is expanded into its partitions
  SubscriptionType type{SubscriptionType::shared};
  InitialPosition initialPosition{InitialPosition::latest};
};

struct ConsumerSpec {
  ConsumerOptions options;  // subscription, queue size, ack timeout, negative acks, ...
  std::vector<TopicSubscription> topics;
  bool durable{true};                       // false: a reader
  std::optional<MessageId> startMessageId;  // readers
  bool startMessageIdInclusive{false};
  // Where messages past options.maxRedeliverCount go (the retry layer's dead-letter path); null:
  // they are dropped from delivery but stay on the subscription.
  std::shared_ptr<PoisonSink> poisonSink;

  // A durable consumer of `options.topics` (checked and canonical), with their type and position.
  static ConsumerSpec of(const ConsumerOptions& options);
};

class ConsumerImpl : public Closeable, public std::enable_shared_from_this<ConsumerImpl> {
 public:
  static void create(const std::shared_ptr<ClientImpl>& client, ConsumerSpec spec,
                     Callback<std::shared_ptr<ConsumerImpl>> done);
  ~ConsumerImpl() override;

  // The next message; nothing when `timeout` (real time) passed first.
  std::optional<Message> receive(std::optional<std::chrono::nanoseconds> timeout);
  // The parts of an async receive that may be cancelled (client/async_receive.hpp): wait in line
  // for the next item (the waiter is quick: it may run inside a backend's delivery), leave the
  // line, hand an item out to the application (flow permits, ack timeout, position), or give back
  // an item not handed out (the next receive gets it).
  ReceiveQueue::Ticket waitForItem(ReceiveQueue::Waiter waiter);
  bool withdraw(ReceiveQueue::Ticket ticket) { return queue_.withdraw(ticket); }
  Message handOut(ReceiveQueue::Item item);
  void giveBack(ReceiveQueue::Item item) { queue_.giveBack(std::move(item)); }

  // grouped: as ConsumerOptions::acknowledgmentGroupTime and acknowledgmentReceipts say.
  // confirmed: sent at once, `done` gets the broker's answer (reconsumeLater's original, the
  // dead-letter tools: their promises need it).
  enum class AckDispatch { grouped, confirmed };
  void acknowledge(const Message& message, Callback<> done,
                   AckDispatch dispatch = AckDispatch::grouped);
  // As part of `transaction`: pending until it commits; an abort makes the message available
  // again (the broker redelivers it).
  void acknowledge(const Message& message, const std::shared_ptr<BackendTransaction>& transaction,
                   Callback<> done);
  Status negativeAcknowledge(const Message& message);
  void redeliverUnacknowledged();
  // Readers: position every topic after `id`; the queue is emptied.
  void seek(const MessageId& id, Callback<> done);
  // Readers: whether any topic has a message after the last one handed out.
  void hasMessageAvailable(Callback<bool> done);
  void close(Callback<> done) override;

  // Which of our topics `message` came from; a failed Status when it is not one of ours.
  Status slotOf(const Message& message, std::size_t& slot) const;
  const ConsumerOptions& options() const { return spec_.options; }
  // The topics subscribed (full names), as asked for: a partitioned topic once.
  const std::vector<std::string>& topics() const { return topicNames_; }
  ClientImpl& client() { return *client_; }
  const std::shared_ptr<ClientImpl>& clientPtr() const { return client_; }

 private:
  // The metric series of one topic or partition (durable consumers; readers keep none).
  struct SlotMetrics {
    std::shared_ptr<Counter> consumed, acknowledged, negativelyAcknowledged;
    std::shared_ptr<Histogram> lateness, ackDuration;
    // An acknowledgement answered with `status`, `took` after it was asked for.
    void count(const Status& status, std::chrono::steady_clock::duration took) const;
  };
  struct Slot {
    std::string topic;
    std::shared_ptr<BackendConsumer> backend;
    // Null for readers. Shared, so that a completion holds one pointer, not five.
    std::shared_ptr<const SlotMetrics> metrics;
    std::atomic<std::uint32_t> taken{0};     // messages handed out since the last flow
    std::optional<MessageId> lastHandedOut;  // readers' position
    // A reader's start after a seek of this partition alone; none: the reader's own start.
    std::optional<MessageId> seekedTo;
  };
  class Sink;

  ConsumerImpl(std::shared_ptr<ClientImpl> client, ConsumerSpec spec);
  // Reduces each topic's receiverQueueSize to its share of
  // maxTotalReceiverQueueSizeAcrossPartitions.
  void limitReceiverQueues(std::vector<SubscribeSpec>& specs);
  void subscribeAll(std::vector<SubscribeSpec> specs, Callback<> done);
  // A message of `slot` left the queue: flow permits go back in bunches.
  void taken(std::size_t slot);
  // A poison message that arrived: to the poison sink instead of the application.
  void divert(std::size_t slot, const Message& message);
  std::shared_ptr<const SlotMetrics> metricsFor(const std::string& topic);
  // A delayed message handed out: how long after its delivery time.
  void recordLateness(const Slot& slot, const MessageData& data);
  void redeliver(std::size_t slot, std::vector<MessageId> ids);
  // Before an acknowledgement: the message's slot, and no timer brings it back any more.
  Status settled(const Message& message, std::size_t& slot);
  // Grouped acknowledgements (client/ack_grouper.hpp), when acknowledgmentGroupTime is set.
  void startAckGroup();
  // The acknowledgements held in the group, to check a delivery against (none without a group).
  std::optional<AckGrouper::HeldView> heldAcks() const {
    if (!ackGroup_) return std::nullopt;
    return ackGroup_->held();
  }
  // Sends the acknowledgement, asked for at `started`, to the slot's backend consumer; `done`
  // (when there is one) gets its answer.
  void sendAck(std::size_t slot, const Message& message, Callback<> done,
               std::chrono::steady_clock::time_point started);
  // The answer to an acknowledgement: counted, and given to `done` (or logged when it failed and
  // nobody waits for it).
  void answered(std::size_t slot, const MessageData& data,
                std::chrono::steady_clock::time_point started, const Status& status,
                const Callback<>& done) const;
  // An acknowledgement of `slot` answered with `status` at `now`, asked for at `started`: counted.
  void counted(std::size_t slot, const Status& status,
               std::chrono::steady_clock::time_point started,
               std::chrono::steady_clock::time_point now) const;
  Status closedStatus() const;

  std::shared_ptr<ClientImpl> client_;
  ConsumerSpec spec_;
  std::vector<std::string> topicNames_;
  std::vector<std::unique_ptr<Slot>> slots_;  // fixed after create
  std::unordered_map<std::string, std::size_t> slotByTopic_;
  std::uint32_t flowThreshold_ = 1;
  ReceiveQueue queue_;
  std::shared_ptr<RedeliveryScheduler> negativeAcks_;
  std::shared_ptr<RedeliveryScheduler> ackTimeouts_;
  PoisonTracker poison_;
  std::shared_ptr<AckGrouper> ackGroup_;  // null: acknowledgements go out at once
  std::mutex positionMutex_;  // readers' positions: Slot::lastHandedOut, spec_.startMessageId
  std::atomic<bool> closed_{false};
};

}  // namespace reconsume::detail::client
