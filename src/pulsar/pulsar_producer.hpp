// A producer on one topic (or one partition) of a Pulsar broker.
//
// Life (Attachment): lookup → connection → PRODUCER → attached. When its session ends or the
// broker closes it (CLOSE_PRODUCER, TOPIC_MIGRATED), it is created again with the same producer
// id and name, and every message still waiting for a receipt is written again, in order; sends
// made meanwhile queue up (SendQueue) and time out after sendTimeout. The user notices nothing
// but the delay — except for a message of a transaction that was written on the lost session:
// it fails with connection_lost instead (it may be stored in the transaction already, and a
// second copy would commit beside it), so that its transaction aborts. Closing waits for the
// receipts of what was sent, then closes on the broker.
//
// Send: with batching (ProducerOptions::batching, on by default) a message's batch metadata is
// built on the caller's thread and the message joins an open batch there (BatchContainer, under
// batchMutex_); only a whole batch crosses to the strand, which writes it as one entry — when
// full or maxPublishDelay after its first message, when a message that cannot join arrives, and
// on close (pulsar_producer_batching.cpp). Without batching (or for
// a message that cannot be batched: a delivery time without a delayedWindow, a transaction) the
// payload is compressed on the caller's thread and the message is its own entry, after any open
// batch. On the strand an entry gets the producer name and the next sequence ids, is checked
// against the broker's maximum message size (too_large, nothing sent), queued and written. The
// receipt with its sequence id completes it (each message of a batch with its batch index).
// SEND_ERROR: a terminated topic fails every pending message (broker_error); other errors end the
// session, so the messages are written again on the next one.
//
// Thread safety: every member may be called from any thread; the state lives on a strand (the
// open batches under their own mutex, held by senders only to add) and callbacks run there with
// no lock held.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "client/backend.hpp"
#include "common/open_handles.hpp"
#include "common/strand_inbox.hpp"
#include "pulsar/attachment.hpp"
#include "pulsar/batch_container.hpp"
#include "pulsar/handle.hpp"
#include "pulsar/send_queue.hpp"

namespace reconsume::detail::pulsar {

class PulsarProducer final : public client::BackendProducer,
                             public AttachHooks,
                             public Handle,
                             public std::enable_shared_from_this<PulsarProducer> {
 public:
  // `done` gets the producer once the broker created it, or the failure: errors that retrying
  // does not fix at once, others once operationTimeout has passed.
  static void create(std::shared_ptr<Network> network, OpenHandles<Handle>& handles,
                     const ProducerOptions& options,
                     Callback<std::shared_ptr<client::BackendProducer>> done);

  // Dropped without close() (the application let go of its Producer while sends were waiting
  // for their batch or receipt, and nothing else holds this): each of them completes with
  // errc::closed here, rather than its handler being destroyed unanswered.
  ~PulsarProducer() override;
  PulsarProducer(const PulsarProducer&) = delete;
  PulsarProducer& operator=(const PulsarProducer&) = delete;

  const std::string& topic() const override { return options_.topic; }
  void send(OutgoingData message, BackendCallback<MessageId>&& done) override;
  // Registers the topic with the transaction first (once per transaction), then queues the
  // message like any other, its metadata and SEND carrying the transaction's id. A message sent
  // outside the transaction meanwhile may overtake it.
  void send(OutgoingData message, const std::shared_ptr<client::BackendTransaction>& transaction,
            BackendCallback<MessageId> done) override;
  void flush() override;
  void close(Callback<> done) override;
  void shutdown(const Status& why) override;

  // Connection::Listener
  void onFrame(protocol::Frame frame) override;
  void onSessionLost(std::uint64_t session, const Status& why) override;

 private:
  PulsarProducer(std::shared_ptr<Network> network, ProducerOptions options);

  // AttachHooks
  std::shared_ptr<AttachHooks> self() override { return shared_from_this(); }
  std::string describe() const override;
  Connection::Kind kind() const override { return Connection::Kind::producer; }
  std::uint64_t nextId() override { return producerId_; }
  proto::BaseCommand createRequest(std::uint64_t id, std::uint64_t requestId) override;
  std::string createWhat() const override { return "PRODUCER " + options_.topic; }
  std::string creationFailure() const override;
  proto::BaseCommand closeRequest(std::uint64_t id, std::uint64_t requestId) override;
  void onAttached(const Response& created, bool first) override;
  void onClosing() override { drainedMaybeClose(); }
  void onDetached(const Status& why) override;
  void onFinished(const AttachMachine::Action& how) override;

  // A send on its way from the caller's thread to the strand (one post per burst, and the sends'
  // order kept): a message for a batch, or one that is its own entry.
  struct Unbatched {
    protocol::EncodedMessage message;
    BackendCallback<MessageId> done;
  };
  // A batch the sender's thread took from the container (full, or ahead of a message that cannot
  // join it): written as it comes.
  struct ReadyBatch {
    OutgoingEntry entry;
  };
  // A message too big to share an entry: written alone.
  struct Alone {
    BatchedMessage message;
    BackendCallback<MessageId> done;
  };
  using Handed = std::variant<ReadyBatch, Alone, Unbatched>;
  // Internal hand-offs take their message by rvalue reference: its completion is an inline
  // function of about a hundred bytes, and each move of it costs two indirect calls (a publish
  // moved it ten times on its way to the batch).
  void hand(Unbatched&& send);
  void postDrain();
  void drainInbox();
  // What the inbox took, in order (drained_ or a flush's own list).
  void writeHanded(std::vector<Handed>& handed);
  // Under batchMutex_: every open batch into the inbox, ahead of what is handed next. True when
  // the caller must post a drain.
  bool handOpenBatchesLocked();

  Status encodeOutgoing(const OutgoingData& message, protocol::EncodedMessage& out) const;
  // Whether `message` goes through the batch container (pulsar_producer_batching.cpp).
  bool batches(const OutgoingData& message) const;
  void sendBatched(OutgoingData message, BackendCallback<MessageId>&& done);
  void writeAlone(Alone&& alone);
  void writeBatch(std::optional<OutgoingEntry> entry);
  void flushBatches();
  void armBatchTimer();
  void failBatches(const Status& why);
  protocol::SendContext entryContext() const;
  Status closedOrEnded() const;
  // A message as its own entry, after what the open batches hold.
  void enqueue(protocol::EncodedMessage message, BackendCallback<MessageId> done);
  // The same, for one that is in order already (the open batches ahead of it were handed first).
  void enqueueInOrder(protocol::EncodedMessage message, BackendCallback<MessageId> done);
  void admit(OutgoingEntry entry, BackendCallback<MessageId> done);
  void handleFrame(const protocol::Frame& frame);
  // The most batch bytes (BatchedMessage::bytes(), uncompressed) an entry holding `message` may
  // have so that, compressed and with its own metadata, it stays within the broker's maximum
  // message size: a batch never goes past the broker's limit, whatever batching.maxBytes says.
  std::size_t batchRoom(const BatchedMessage& message) const;
  // Fails the oldest pending message, when it is `sequenceId`, with `why`; false otherwise.
  bool refuse(std::uint64_t sequenceId, const Status& why);
  void onReceipt(const proto::CommandSendReceipt& receipt);
  Bytes encode(OutgoingEntry& entry, std::uint64_t sequenceId) const;
  // encode() as the send queue takes it.
  SendQueue::Encoder encoder();
  void writeNew(std::size_t count);
  void refillAndWrite();
  void armSendTimer();
  void onSendTimer();
  void drainedMaybeClose();
  // Every send still held (open batches, the inbox, the send queue) completes with `why`.
  void failPending(const Status& why);
  void failEverything(const Status& why);

  const std::shared_ptr<Network> network_;
  const ProducerOptions options_;
  const std::int32_t partition_;
  const std::uint64_t producerId_;
  Strand strand_;

  // Strand state.
  Attachment attachment_;
  std::uint64_t epoch_ = 0;
  std::string name_;  // the broker's name for us, once created
  bool nameFromBroker_ = false;
  std::optional<std::uint64_t> topicEpoch_;
  // The broker's limit, from the connection; remembered while reconnecting. Written on the
  // strand, read by senders (whether a message may join a batch).
  std::atomic<std::uint32_t> maxMessageSize_{protocol::kDefaultMaxMessageSize};
  SendQueue queue_;
  Timer batchTimer_;

  // The open batches, filled on the senders' threads: a message joins its batch there, and only
  // a batch that is full (or must go ahead of a message) crosses to the strand — one hand-over
  // per entry, not per message. Every push to inbox_ of a sender with batching on happens under
  // this mutex, so that the inbox and the container together keep the order of the sends. The
  // clock is read under it when a message opens a batch (a ManualSteadyClock's own mutex, which
  // guards nothing that takes this one, is the only lock taken inside it).
  std::mutex batchMutex_;
  BatchContainer batches_;         // guarded by batchMutex_
  bool batchTimerWanted_ = false;  // guarded: a timer is armed for the batches, or asked for
  Status batchesEnded_;            // guarded: set, a send to a batch fails with it
  Status ended_;  // set: every send fails with it (topic terminated, topic deleted, shut down)
  std::vector<Handed> drained_;  // what drainInbox() took, kept for its capacity
  Timer sendTimer_;
  std::optional<Timer::time_point> sendTimerAt_;
  std::atomic<bool> closed_{false};
  StrandInbox<Handed> inbox_;
};

}  // namespace reconsume::detail::pulsar
