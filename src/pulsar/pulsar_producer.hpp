// A producer on one topic (or one partition) of a Pulsar broker.
//
// Life: lookup → connection → PRODUCER → ready. When its session ends or the broker closes it
// (CLOSE_PRODUCER, TOPIC_MIGRATED), it looks the topic up again and re-creates itself with the
// same producer id and name, then writes every message still waiting for a receipt again, in
// order; sends made meanwhile queue up (SendQueue) and time out after sendTimeout. The user
// notices nothing but the delay.
//
// Send: the payload is compressed on the caller's thread; on the strand the message gets the
// producer name and the next sequence id, is checked against the broker's maximum message size
// (too_large, nothing sent), queued and written. The receipt with its sequence id completes it.
// SEND_ERROR: a terminated topic fails every pending message (broker_error); other errors end the
// session, so the messages are written again on the next one.
//
// Thread safety: every member may be called from any thread; the state lives on a strand and
// callbacks run there with no lock held.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "client/backend.hpp"
#include "pulsar/attach_attempts.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/network.hpp"
#include "pulsar/open_handles.hpp"
#include "pulsar/send_queue.hpp"

namespace reconsume::detail::pulsar {

class PulsarProducer final : public client::BackendProducer,
                             public Connection::Listener,
                             public Handle,
                             public std::enable_shared_from_this<PulsarProducer> {
 public:
  // `done` gets the producer once the broker created it, or the failure: errors that retrying
  // does not fix at once, others once operationTimeout has passed.
  static void create(std::shared_ptr<Network> network, std::shared_ptr<OpenHandles> handles,
                     const ProducerOptions& options,
                     Callback<std::shared_ptr<client::BackendProducer>> done);
  ~PulsarProducer() override;

  const std::string& topic() const override { return options_.topic; }
  void send(const OutgoingMessage& message, Callback<MessageId> done) override;
  void close(Callback<> done) override;

  void onFrame(detail::protocol::Frame frame) override;
  void onSessionLost(std::uint64_t session, const Status& why) override;
  void shutdown(const Status& why) override;

 private:
  enum class State { connecting, ready, reconnecting, closing, closed };
  using Clock = std::chrono::steady_clock;

  PulsarProducer(std::shared_ptr<Network> network, ProducerOptions options);

  void connect();
  void onLookup(std::uint64_t attempt, const Status& status, const BrokerAddress& address);
  void onCreated(std::uint64_t attempt, const std::shared_ptr<Connection>& connection,
                 Response response);
  void attemptFailed(const Status& status);
  void reconnectLater(const Status& why);
  void enqueue(detail::protocol::EncodedMessage message, Callback<MessageId> done);
  void handleFrame(const detail::protocol::Frame& frame);
  void writeNew(std::size_t count);
  void armSendTimer();
  void drainedMaybeClose();
  void finishClose(const Status& outcome);
  void failEverything(const Status& why);
  std::string describe() const;

  const std::shared_ptr<Network> network_;
  const ProducerOptions options_;
  const std::int32_t partition_;
  const std::uint64_t producerId_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;

  // Strand state.
  State state_ = State::connecting;
  std::uint64_t epoch_ = 0;
  std::string name_;  // the broker's name for us, once created
  bool nameFromBroker_ = false;
  std::optional<std::uint64_t> topicEpoch_;
  std::shared_ptr<Connection> connection_;
  std::uint64_t session_ = 0;
  // The broker's limit, from the connection; remembered while reconnecting.
  std::uint32_t maxMessageSize_ = detail::protocol::kDefaultMaxMessageSize;
  SendQueue queue_;
  Status ended_;  // set: every send fails with it (topic terminated, topic deleted)
  Callback<std::shared_ptr<client::BackendProducer>> created_;  // until the first PRODUCER_SUCCESS
  std::vector<Callback<>> closeWaiters_;
  AttachAttempts attempts_;
  boost::asio::steady_timer sendTimer_;
  std::optional<Clock::time_point> sendTimerAt_;
  std::atomic<bool> closed_{false};
};

}  // namespace reconsume::detail::pulsar
