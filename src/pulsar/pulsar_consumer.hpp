// A consumer (or a reader's non-durable consumer) of one subscription on one topic or partition
// of a Pulsar broker.
//
// Life (Attachment): lookup → connection → SUBSCRIBE → attached: the sink is reset and the broker
// granted receiverQueueSize permits. When the session ends or the broker closes the consumer
// (CLOSE_CONSUMER, also after a SEEK), it subscribes again under a new consumer id: a durable
// consumer starts from a reset sink (the broker redelivers what was not acknowledged); a reader
// keeps what its sink holds and resumes after the last message it handed on, so it never sees a
// message twice. Acknowledgements, seeks and last-id queries made meanwhile wait for the new
// subscription (up to operationTimeout).
//
// Messages (pulsar_consumer_messages.cpp): MESSAGE → protocol::unpackEntry → one MessageData per
// message. A damaged entry (a bad checksum, an undecodable metadata, compression or batch) is
// discarded: acknowledged with the validation error and logged, as the Java client does; the
// connection stays up. Otherwise one message, with the redelivery count and, for a batch entry, the
// entry's shared BatchAckTracker in backendState. Dropped instead of handed on (and their permits
// returned): messages of a batch acknowledged before, a reader's messages at or before its
// position, messages sent before a seek or before a redelivery of everything (older consumer
// epoch).
//
// Acknowledgement (pulsar_consumer_operations.cpp): individual ACK with a request id, completed by
// the broker's ACK_RESPONSE (acknowledgements made in one burst share one ACK command and its
// receipt). A message of a batch completes at once while other messages of its entry are
// unacknowledged (BatchAcks); the one completing the entry sends the ACK and waits for the broker.
// In a transaction (pulsar_consumer_transactions.cpp): the subscription is registered with the
// transaction first, then each acknowledgement is an ACK of its own with the transaction's id,
// completed by its ACK_RESPONSE (where a conflict is reported).
//
// Thread safety: every member may be called from any thread; the state lives on a strand; the
// sink and callbacks run there with no lock held.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "client/backend.hpp"
#include "common/open_handles.hpp"
#include "common/strand_inbox.hpp"
#include "pulsar/attachment.hpp"
#include "pulsar/batch_acks.hpp"
#include "pulsar/flow_permits.hpp"
#include "pulsar/handle.hpp"
#include "pulsar/reader_position.hpp"

namespace reconsume::detail::pulsar {

class PulsarConsumer final : public client::BackendConsumer,
                             public AttachHooks,
                             public Handle,
                             public std::enable_shared_from_this<PulsarConsumer> {
 public:
  static void subscribe(std::shared_ptr<Network> network, OpenHandles<Handle>& handles,
                        const client::SubscribeSpec& spec,
                        std::shared_ptr<client::MessageSink> sink,
                        Callback<std::shared_ptr<client::BackendConsumer>> done);

  const std::string& topic() const override { return spec_.topic; }
  void flow(std::uint32_t permits) override;
  void acknowledge(const MessageData& message, BackendCallback<> done) override;
  void acknowledge(const MessageData& message,
                   const std::shared_ptr<client::BackendTransaction>& transaction,
                   BackendCallback<> done) override;
  void redeliver(const std::vector<MessageId>& ids) override;
  void redeliverAll() override;
  void seek(const MessageId& id, Callback<> done) override;
  void lastMessageId(Callback<MessageId> done) override;
  void close(Callback<> done) override;
  void shutdown(const Status& why) override;

  // Connection::Listener
  void onFrame(protocol::Frame frame) override;
  void onSessionLost(std::uint64_t session, const Status& why) override;
  void onCorruptEntry(protocol::CorruptEntry entry) override;

 private:
  // An operation waiting for the subscription: run with ok, or failed with the status.
  struct Deferred {
    Timer::time_point deadline;
    std::function<void(const Status&)> run;
  };

  PulsarConsumer(std::shared_ptr<Network> network, client::SubscribeSpec spec,
                 std::shared_ptr<client::MessageSink> sink);

  // AttachHooks
  std::shared_ptr<AttachHooks> self() override { return shared_from_this(); }
  std::string describe() const override;
  Connection::Kind kind() const override { return Connection::Kind::consumer; }
  std::uint64_t nextId() override { return ++network_->lastConsumerId; }
  proto::BaseCommand createRequest(std::uint64_t id, std::uint64_t requestId) override;
  std::string createWhat() const override;
  std::string creationFailure() const override;
  proto::BaseCommand closeRequest(std::uint64_t id, std::uint64_t requestId) override;
  void onAttached(const Response& created, bool first) override;
  void onClosing() override;
  void onFinished(const AttachMachine::Action& how) override;
  void onDetached(const Status& why) override;

  // pulsar_consumer_messages.cpp
  void handleFrame(protocol::Frame& frame);
  void handleMessage(protocol::Frame& frame);
  void discardCorrupt(const MessageId& entry, proto::CommandAck::ValidationError reason,
                      const std::string& why);
  void sendFlow(std::uint32_t permits);
  void returnPermits(std::uint32_t permits);

  // pulsar_consumer_operations.cpp
  void whenReady(std::function<void(const Status&)> run);
  // Attached and no seek in flight: requests for this consumer may go out.
  bool servable() const;
  void runDeferred();
  void failDeferred(const Status& why);
  void armDeferredTimer();
  void onDeferredTimer();
  struct AckToSend {
    MessageId id;
    BackendCallback<> done;
    // Empty: the whole entry. Else a batch-index acknowledgement (SubscribeSpec::batchIndexAcks)
    // of the indexes clear in it; `id` then carries the batch size.
    std::vector<std::int64_t> ackSet;
  };
  void ackEntry(AckToSend ack);
  // What acknowledge() handed over, into acksToSend_ (or completed: an index of a batch entry
  // not complete yet, without batch-index acknowledgements); flushAcks() sends it.
  void drainAcks();
  void flushAcks();
  // Sends an ACK request (plain or transactional) and keeps its id until the answer.
  void requestAck(std::uint64_t requestId, const proto::BaseCommand& command, std::string what,
                  Callback<> done);
  // Seeks to `id`: what follows it comes next, or `id` itself first when `inclusive`.
  void startSeek(const MessageId& id, bool inclusive, Callback<> done);
  // A reader from the last message, inclusive: finds it and seeks there before the first FLOW.
  void findTheLastMessage();
  void readFromTheLatest(const Status& why);
  void onSeekAnswer(const MessageId& id, bool inclusive, std::uint64_t consumerId,
                    Response response, Callback<> done);

  // pulsar_consumer_transactions.cpp
  void sendTransactionalAck(const MessageId& id, int batchSize, const TxnId& txn, Callback<> done);

  const std::shared_ptr<Network> network_;
  const client::SubscribeSpec spec_;
  const std::shared_ptr<client::MessageSink> sink_;
  std::vector<std::shared_ptr<MessageData>> delivering_;  // one entry's messages; its capacity kept
  const std::int32_t partition_;
  const SharedText topicName_;  // spec_.topic, shared by every message received
  Strand strand_;

  // Strand state.
  Attachment attachment_;
  std::uint64_t epoch_ = 0;  // raised by a redelivery of everything (Exclusive, Failover)
  bool resetOnSubscribe_ = true;
  FlowPermits permits_;
  ReaderPosition position_;
  BatchAcks batches_;
  std::deque<Deferred> deferred_;
  std::vector<AckToSend> acksToSend_;
  struct HandedAck {
    MessageId id;
    std::shared_ptr<protocol::BatchAckTracker> tracker;
    BackendCallback<> done;
  };
  std::vector<HandedAck> ackDrained_;     // kept for its capacity
  std::set<std::uint64_t> acksInFlight_;  // request ids of ACKs on the current attachment
  Timer deferredTimer_;
  std::atomic<bool> closed_{false};
  StrandInbox<HandedAck> ackInbox_;
};

}  // namespace reconsume::detail::pulsar
