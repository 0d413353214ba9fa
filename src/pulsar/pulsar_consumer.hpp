// A consumer (or a reader's non-durable consumer) of one subscription on one topic or partition
// of a Pulsar broker.
//
// Life: lookup → connection → SUBSCRIBE → ready: the sink is reset and the broker granted
// receiverQueueSize permits. When the session ends or the broker closes the consumer
// (CLOSE_CONSUMER, also after a SEEK), it subscribes again under a new consumer id: a durable
// consumer starts from a reset sink (the broker redelivers what was not acknowledged); a reader
// keeps what its sink holds and resumes after the last message it handed on, so it never sees a
// message twice. Acknowledgements, seeks and last-id queries made meanwhile wait for the new
// subscription (up to operationTimeout).
//
// Messages: MESSAGE → protocol::unpackEntry → one MessageData per message, with the redelivery
// count and, for a batch entry, the entry's shared BatchAckTracker in backendState. Dropped
// instead of handed on (and their permits returned): messages of a batch acknowledged before,
// a reader's messages at or before its position, messages sent before a seek or before a
// redelivery of everything (older consumer epoch).
//
// Acknowledgement: individual ACK with a request id, completed by the broker's ACK_RESPONSE
// (acknowledgements made in one burst share one ACK command and its receipt). A
// message of a batch completes at once while other messages of its entry are unacknowledged
// (BatchAcks); the one completing the entry sends the ACK and waits for the broker.
//
// Thread safety: every member may be called from any thread; the state lives on a strand; the
// sink and callbacks run there with no lock held.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "client/backend.hpp"
#include "pulsar/attach_attempts.hpp"
#include "pulsar/batch_acks.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/flow_permits.hpp"
#include "pulsar/network.hpp"
#include "pulsar/open_handles.hpp"
#include "pulsar/reader_position.hpp"

namespace reconsume::detail::pulsar {

class PulsarConsumer final : public client::BackendConsumer,
                             public Connection::Listener,
                             public Handle,
                             public std::enable_shared_from_this<PulsarConsumer> {
 public:
  static void subscribe(std::shared_ptr<Network> network, std::shared_ptr<OpenHandles> handles,
                        const client::SubscribeSpec& spec,
                        std::shared_ptr<client::MessageSink> sink,
                        Callback<std::shared_ptr<client::BackendConsumer>> done);
  ~PulsarConsumer() override;

  const std::string& topic() const override { return spec_.topic; }
  void flow(std::uint32_t permits) override;
  void acknowledge(const MessageData& message, Callback<> done) override;
  void redeliver(const std::vector<MessageId>& ids) override;
  void redeliverAll() override;
  void seek(const MessageId& id, Callback<> done) override;
  void lastMessageId(Callback<MessageId> done) override;
  void close(Callback<> done) override;

  void onFrame(detail::protocol::Frame frame) override;
  void onSessionLost(std::uint64_t session, const Status& why) override;
  void shutdown(const Status& why) override;

 private:
  enum class State { subscribing, ready, resubscribing, closing, closed };
  using Clock = std::chrono::steady_clock;
  // An operation waiting for the subscription: run with ok, or failed with the status.
  struct Deferred {
    Clock::time_point deadline;
    std::function<void(const Status&)> run;
  };

  PulsarConsumer(std::shared_ptr<Network> network, client::SubscribeSpec spec,
                 std::shared_ptr<client::MessageSink> sink);

  void connect();
  void onLookup(std::uint64_t attempt, const Status& status, const BrokerAddress& address);
  void onSubscribed(std::uint64_t attempt, const std::shared_ptr<Connection>& connection,
                    std::uint64_t consumerId, Response response);
  void attemptFailed(const Status& status);
  void resubscribeLater(const Status& why, bool resetQueue, bool now = false);
  void handleFrame(detail::protocol::Frame& frame);
  void handleMessage(detail::protocol::Frame& frame);
  void sendFlow(std::uint32_t permits);
  void returnPermits(std::uint32_t permits);
  void whenReady(std::function<void(const Status&)> run);
  void runDeferred();
  void armDeferredTimer();
  void ackEntry(const MessageId& id, Callback<> done);
  void flushAcks();
  void finishClose();
  std::string describe() const;

  const std::shared_ptr<Network> network_;
  const client::SubscribeSpec spec_;
  const std::shared_ptr<client::MessageSink> sink_;
  const std::int32_t partition_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;

  // Strand state.
  State state_ = State::subscribing;
  std::uint64_t consumerId_ = 0;  // new for every subscription on the broker
  std::shared_ptr<Connection> connection_;
  std::uint64_t session_ = 0;
  std::uint64_t epoch_ = 0;  // raised by a redelivery of everything (Exclusive, Failover)
  bool resetOnSubscribe_ = true;
  bool seeking_ = false;           // a SEEK is in flight: messages are from before it
  bool closedDuringSeek_ = false;  // the broker closed us for the seek: subscribe after it
  FlowPermits permits_;
  ReaderPosition position_;
  BatchAcks batches_;
  std::map<std::pair<std::int64_t, std::int64_t>, int> corruptDeliveries_;
  std::deque<Deferred> deferred_;
  std::vector<std::pair<MessageId, Callback<>>> acksToSend_;
  Callback<std::shared_ptr<client::BackendConsumer>> created_;
  std::vector<Callback<>> closeWaiters_;
  AttachAttempts attempts_;
  boost::asio::steady_timer deferredTimer_;
  std::atomic<bool> closed_{false};
};

}  // namespace reconsume::detail::pulsar
