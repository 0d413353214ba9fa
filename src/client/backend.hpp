// The seam between the backend-neutral client layer and a backend (embedded:// or pulsar://).
//
// A backend deals with single topics only: a non-partitioned topic or one partition. Partitions,
// multi-topic consumers, receive queues, negative-ack and ack-timeout timers, readers' positions
// and the retry layer are written once above this interface.
//
// Contract for every callback: it runs exactly once, on a thread of the backend's choosing (it
// may run inside the call that started the operation), never while a lock of the backend is
// held. A backend never calls user code; the layer above posts user handlers to executors.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/callback.hpp"
#include "common/message_data.hpp"
#include "common/outgoing_data.hpp"
#include "common/status.hpp"
#include "common/txn_id.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/consumer_options.hpp"
#include "reconsume/message.hpp"
#include "reconsume/producer_options.hpp"

namespace reconsume::detail::client {

// One transaction of a backend (Pulsar's transactions, PIP-31): what is published with it stays
// invisible to consumers, and what is acknowledged with it stays pending (delivered to nobody
// else), until it commits; an abort discards the publishes and makes the acknowledged messages
// available again (redelivered). The coordinator aborts a transaction still open after its
// timeout.
class BackendTransaction {
 public:
  virtual ~BackendTransaction() = default;
  virtual const TxnId& id() const = 0;
  // Ends the transaction. Errors: transaction_not_found (timed out, or already ended),
  // transaction_conflict, unavailable / connection_lost / timeout (the outcome may be unknown:
  // see SPEC.md section 1), closed.
  virtual void commit(Callback<> done) = 0;
  virtual void abort(Callback<> done) = 0;
};

class BackendProducer {
 public:
  virtual ~BackendProducer() = default;
  virtual const std::string& topic() const = 0;
  // Stores the message; the callback gets its id once the broker confirmed it. Validates
  // deliverAfter/deliverAt and the size against the broker's maximum message size. With a
  // transaction, the message is stored as part of it (the topic is registered with the
  // transaction first).
  // `done` is the callee's (by rvalue reference: each move of it costs two indirect calls).
  virtual void send(OutgoingData message, BackendCallback<MessageId>&& done) = 0;
  virtual void send(OutgoingData message, const std::shared_ptr<BackendTransaction>& transaction,
                    BackendCallback<MessageId> done) = 0;
  // Writes now what waits for a batching delay (ProducerOptions::batching); nothing to do for a
  // backend that does not hold messages back. Returns at once.
  virtual void flush() {}
  virtual void close(Callback<> done) = 0;
};

// Where a backend consumer puts what it receives. Called from backend threads, possibly while
// the backend holds a lock of its own (the embedded broker calls sinks under the topic's lock, so
// each consumer sees its messages in order). Hence the promise of the layer above: a sink is quick
// (queue and return) and never calls back into the backend, directly or through code it runs
// inline (completion handlers, user code); anything more is posted elsewhere.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  // The message may be shared with other deliveries (other subscriptions, readers): read it,
  // never modify it.
  virtual void onMessage(std::shared_ptr<MessageData> message) = 0;
  // Several messages in their order (the messages of one entry): as onMessage for each, which
  // is what this default does. A sink may take them in one go (one lock, one wake-up of a
  // waiting receiver instead of one per message). The elements are moved from; the caller
  // clears the vector and may reuse it.
  virtual void onMessages(std::vector<std::shared_ptr<MessageData>>& messages) {
    for (auto& message : messages) onMessage(std::move(message));
  }
  // Every message of this consumer not yet handed to the application will be delivered again
  // (reconnect, seek, redelivery of all unacknowledged messages): drop those still queued from
  // `topic`, and start counting flow permits afresh — the backend grants this consumer
  // SubscribeSpec::receiverQueueSize permits again, as at a (re)subscribe.
  virtual void onReset(const std::string& topic) = 0;
  // The broker ended this consumer for good (topic deleted, subscription removed, or — Pulsar's
  // ReachedEndOfTopic — the topic is terminated and this subscription has acknowledged all of it).
  virtual void onEnded(const std::string& topic, const Status& why) = 0;
};

struct SubscribeSpec {
  std::string topic;  // a non-partitioned topic or one partition, full name
  std::string subscription;
  SubscriptionType type{SubscriptionType::shared};
  InitialPosition initialPosition{InitialPosition::latest};
  std::string consumerName;
  int receiverQueueSize{1000};              // permits granted at (re)subscribe
  bool durable{true};                       // false: a reader's non-durable subscription
  std::optional<MessageId> startMessageId;  // readers
  bool startMessageIdInclusive{false};
  // Acknowledgements of single messages of a batch entry go to the broker as batch-index
  // acknowledgements (ConsumerOptions::batchIndexAcknowledgement).
  bool batchIndexAcks{false};
};

class BackendConsumer {
 public:
  virtual ~BackendConsumer() = default;
  virtual const std::string& topic() const = 0;
  // The application took `permits` messages out of the queue: the backend may deliver that many
  // more. (At each (re)subscribe the backend itself grants SubscribeSpec::receiverQueueSize.)
  virtual void flow(std::uint32_t permits) = 0;
  // Individual acknowledgement. For a message of a batch entry, the entry is acknowledged on the
  // broker once every index of it is (with SubscribeSpec::batchIndexAcks, each index at once).
  virtual void acknowledge(const MessageData& message, BackendCallback<> done) = 0;
  // Acknowledgement as part of a transaction (the subscription is registered with it first):
  // pending until it commits. transaction_conflict when the message is acknowledged already or
  // pending in another transaction.
  virtual void acknowledge(const MessageData& message,
                           const std::shared_ptr<BackendTransaction>& transaction,
                           BackendCallback<> done) = 0;
  // Asks the broker to redeliver these messages now, with their redelivery count raised. On
  // Exclusive and Failover subscriptions Pulsar redelivers every unacknowledged message instead
  // (and the backend calls MessageSink::onReset); Pulsar keeps redelivery counts only on Shared
  // and Key_Shared subscriptions (on the others they stay 0).
  virtual void redeliver(const std::vector<MessageId>& ids) = 0;
  // Every message delivered to this consumer and not acknowledged, after MessageSink::onReset.
  virtual void redeliverAll() = 0;
  // The subscription restarts after `id` (from the first message for MessageId::earliest(), at
  // the end for latest()): every later message is unacknowledged and undelivered again, and every
  // consumer of the subscription gets MessageSink::onReset.
  virtual void seek(const MessageId& id, Callback<> done) = 0;
  virtual void lastMessageId(Callback<MessageId> done) = 0;
  virtual void close(Callback<> done) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void createProducer(const ProducerOptions& options,
                              Callback<std::shared_ptr<BackendProducer>> done) = 0;
  virtual void subscribe(const SubscribeSpec& spec, std::shared_ptr<MessageSink> sink,
                         Callback<std::shared_ptr<BackendConsumer>> done) = 0;
  // Number of partitions; 0 for a non-partitioned topic.
  virtual void partitions(const std::string& topic, Callback<int> done) = 0;
  // The same for a topic that may not exist, without creating anything: 0 when it does not
  // exist. (Pulsar creates a partitioned topic that partitions() asks about when the broker has
  // allowAutoTopicCreationType=partitioned; this asks with metadata auto-creation off.)
  virtual void existingPartitions(const std::string& topic, Callback<int> done) = 0;
  // A new transaction, aborted by the coordinator if still open after `timeout`. Errors:
  // unsupported (the broker has no transaction coordinator), unavailable, timeout, closed.
  virtual void newTransaction(std::chrono::milliseconds timeout,
                              Callback<std::shared_ptr<BackendTransaction>> done) = 0;
  // Completes every operation still in flight with errc::closed, then `done`.
  virtual void close(Callback<> done) = 0;
};

}  // namespace reconsume::detail::client
