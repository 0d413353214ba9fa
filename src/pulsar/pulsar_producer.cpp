#include "pulsar/pulsar_producer.hpp"

#include <boost/asio/post.hpp>

#include "common/topic_name.hpp"
#include "protocol/commands.hpp"
#include "protocol/compression.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/message_id.hpp"
#include "protocol/server_error.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

std::uint64_t epochMillis() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

PulsarProducer::PulsarProducer(std::shared_ptr<Network> network, ProducerOptions options)
    : network_(std::move(network)),
      options_(std::move(options)),
      partition_(partitionIndexOf(options_.topic)),
      producerId_(++network_->lastProducerId),
      strand_(asio::make_strand(network_->executor)),
      queue_(options_.maxPendingMessages, options_.blockIfQueueFull),
      attempts_(strand_, network_),
      sendTimer_(strand_) {}

void PulsarProducer::create(std::shared_ptr<Network> network, std::shared_ptr<OpenHandles> handles,
                            const ProducerOptions& options,
                            Callback<std::shared_ptr<client::BackendProducer>> done) {
  std::shared_ptr<PulsarProducer> producer(new PulsarProducer(std::move(network), options));
  if (!handles->add(producer)) {
    producer->closed_ = true;
    producer->state_ = State::closed;
    return done(Status(errc::closed, "the client is closed"), nullptr);
  }
  asio::post(producer->strand_, [producer, done = std::move(done)]() mutable {
    if (producer->state_ == State::closed) {
      return done(Status(errc::closed, "the client is closed"), nullptr);
    }
    producer->created_ = std::move(done);
    producer->attempts_.beginCreation();
    producer->connect();
  });
}

PulsarProducer::~PulsarProducer() {
  // Dropped without close(): tell the broker, best effort.
  if (connection_ && state_ != State::closed) {
    connection_->detach(Connection::Kind::producer, producerId_);
    auto id = connection_->newRequestId();
    connection_->request(id, detail::protocol::closeProducer(producerId_, id), "CLOSE_PRODUCER",
                         [](Response) {});
  }
}

std::string PulsarProducer::describe() const {
  return "producer " + (name_.empty() ? std::to_string(producerId_) : "'" + name_ + "'") + " of " +
         options_.topic;
}

// ----- creation and re-creation -----------------------------------------------------------------

void PulsarProducer::connect() {
  attempts_.lookUp(options_.topic, state_ == State::connecting,
                   [self = shared_from_this()](std::uint64_t attempt, const Status& status,
                                               const BrokerAddress& address) {
                     self->onLookup(attempt, status, address);
                   });
}

void PulsarProducer::onLookup(std::uint64_t attempt, const Status& status,
                              const BrokerAddress& address) {
  if (!attempts_.isCurrent(attempt) ||
      (state_ != State::connecting && state_ != State::reconnecting)) {
    return;
  }
  if (!status.ok()) return attemptFailed(status);
  auto connection = network_->pool->get(address);
  connection->attach(Connection::Kind::producer, producerId_, weak_from_this());
  detail::protocol::ProducerRequest request;
  request.topic = options_.topic;
  request.producerId = producerId_;
  request.requestId = connection->newRequestId();
  request.producerName = name_.empty() ? options_.producerName : name_;
  request.nameFromBroker = nameFromBroker_;
  request.epoch = epoch_++;
  request.topicEpoch = topicEpoch_;
  request.initialSubscriptionName = options_.initialSubscription.value_or("");
  request.metadata = options_.metadata;
  connection->request(
      request.requestId, detail::protocol::producer(request), "PRODUCER " + options_.topic,
      [self = shared_from_this(), attempt, connection](Response response) {
        asio::post(self->strand_, [self, attempt, connection, response = std::move(response)] {
          self->onCreated(attempt, connection, std::move(response));
        });
      });
}

void PulsarProducer::onCreated(std::uint64_t attempt, const std::shared_ptr<Connection>& connection,
                               Response response) {
  bool current = attempts_.isCurrent(attempt) &&
                 (state_ == State::connecting || state_ == State::reconnecting);
  if (!current) {
    if (response.status.ok()) {
      // Created for an attempt given up meanwhile: remove it from the broker again.
      auto id = connection->newRequestId();
      connection->request(id, detail::protocol::closeProducer(producerId_, id), "CLOSE_PRODUCER",
                          [](Response) {});
    }
    return;
  }
  if (!response.status.ok()) {
    connection->detach(Connection::Kind::producer, producerId_);
    return attemptFailed(response.status);
  }
  const auto& success = response.command.producer_success();
  bool first = state_ == State::connecting;
  connection_ = connection;
  session_ = response.session;
  name_ = success.producer_name();
  nameFromBroker_ = options_.producerName.empty();
  if (success.has_topic_epoch()) topicEpoch_ = success.topic_epoch();
  if (first && success.last_sequence_id() >= 0) {
    queue_.setNextSequenceId(static_cast<std::uint64_t>(success.last_sequence_id()) + 1);
  }
  state_ = State::ready;
  attempts_.succeeded();
  if (!first) {
    network_->log.info(describe() + " is connected again; writing " +
                       std::to_string(queue_.pending().size()) + " unconfirmed messages again");
  }
  writeNew(queue_.pending().size());
  if (created_) {
    auto done = std::move(created_);
    created_ = nullptr;
    done({}, shared_from_this());
  }
}

void PulsarProducer::attemptFailed(const Status& status) {
  if (state_ == State::connecting) {
    auto again = [self = shared_from_this()] {
      if (self->state_ == State::connecting) self->connect();
    };
    if (attempts_.retryCreation(status, again)) return;
    state_ = State::closed;
    closed_ = true;
    auto done = std::move(created_);
    created_ = nullptr;
    if (done)
      done(Status(status.code,
                  "cannot create the producer of " + options_.topic + ": " + status.message),
           nullptr);
    return;
  }
  if (state_ != State::reconnecting) return;
  if (status.code == errc::not_found) {
    // The topic is gone (deleted, and not created on demand): nothing will be sent any more.
    network_->log.error(describe() + " cannot be re-created: " + status.message);
    ended_ = status;
    failEverything(status);
    return;
  }
  reconnectLater(status);
}

void PulsarProducer::reconnectLater(const Status& why) {
  if (connection_) connection_->detach(Connection::Kind::producer, producerId_);
  connection_.reset();
  state_ = State::reconnecting;
  auto wait = attempts_.retryLater([self = shared_from_this()] {
    if (self->state_ == State::reconnecting) self->connect();
  });
  network_->log.info(describe() + " reconnects in " + std::to_string(wait.count()) +
                     " ms: " + why.message);
}

void PulsarProducer::onSessionLost(std::uint64_t session, const Status& why) {
  asio::post(strand_, [self = shared_from_this(), session, why] {
    if (session != self->session_ || !self->connection_) return;
    if (self->state_ == State::ready) return self->reconnectLater(why);
    if (self->state_ == State::closing) {
      // Closing anyway: what had no receipt yet will not get one.
      for (auto& done : self->queue_.takeAll()) done(why, MessageId());
      self->finishClose(why);
    }
  });
}

// ----- sending ----------------------------------------------------------------------------------

void PulsarProducer::send(const OutgoingMessage& message, Callback<MessageId> done) {
  if (closed_) {
    return done(Status(errc::closed, "producer of " + options_.topic + " is closed"), MessageId());
  }
  // Compression is the expensive part: done here, on the caller's thread.
  detail::protocol::EncodedMessage encoded;
  try {
    detail::protocol::SendContext context;
    context.publishTimeMs = epochMillis();  // the broker's clock is the system's
    context.compression = detail::protocol::toProto(options_.compression);
    encoded = detail::protocol::encodeMessage(message, context);
  } catch (...) {
    return done(Status::fromException(std::current_exception()), MessageId());
  }
  asio::post(strand_, [self = shared_from_this(), encoded = std::move(encoded),
                       done = std::move(done)]() mutable {
    self->enqueue(std::move(encoded), std::move(done));
  });
}

void PulsarProducer::enqueue(detail::protocol::EncodedMessage message, Callback<MessageId> done) {
  if (!ended_.ok()) return done(ended_, MessageId());
  if (state_ == State::closing || state_ == State::closed) {
    return done(Status(errc::closed, describe() + " is closed"), MessageId());
  }
  message.metadata.set_producer_name(name_);
  if (connection_) maxMessageSize_ = connection_->maxMessageSize();
  if (auto status = detail::protocol::checkMessageSize(message, maxMessageSize_); !status.ok()) {
    return done(Status(status.code, status.message + " (" + describe() + ")"), MessageId());
  }
  auto deadline = options_.sendTimeout.count() > 0 ? Clock::now() + options_.sendTimeout
                                                   : Clock::time_point::max();
  auto encode = [this](detail::protocol::EncodedMessage& m, std::uint64_t sequenceId) {
    m.metadata.set_sequence_id(sequenceId);
    return detail::protocol::encodeSend(producerId_, m);
  };
  switch (queue_.admit(std::move(message), done, deadline, encode)) {
    case SendQueue::Admitted::pending:
      writeNew(1);
      break;
    case SendQueue::Admitted::waiting:
      break;
    case SendQueue::Admitted::busy:
      return done(Status(errc::producer_busy,
                         describe() + " has " + std::to_string(options_.maxPendingMessages) +
                             " messages waiting for a receipt (maxPendingMessages) and "
                             "blockIfQueueFull is off"),
                  MessageId());
  }
  armSendTimer();
}

void PulsarProducer::writeNew(std::size_t count) {
  if (state_ != State::ready || !connection_ || count == 0) return;
  const auto& pending = queue_.pending();
  std::string frames;
  for (auto it = pending.end() - static_cast<std::ptrdiff_t>(count); it != pending.end(); ++it) {
    frames += it->frame;
  }
  connection_->send(session_, std::move(frames));
}

void PulsarProducer::onFrame(detail::protocol::Frame frame) {
  asio::post(strand_,
             [self = shared_from_this(), frame = std::move(frame)] { self->handleFrame(frame); });
}

void PulsarProducer::handleFrame(const detail::protocol::Frame& frame) {
  if (state_ != State::ready && state_ != State::closing) return;
  const auto& command = frame.command;
  switch (command.type()) {
    case proto::BaseCommand::SEND_RECEIPT: {
      const auto& receipt = command.send_receipt();
      bool outOfOrder = false;
      auto confirmed = queue_.receipt(receipt.sequence_id(), outOfOrder);
      if (outOfOrder) {
        // The broker skipped a message: start over on a new session, which writes all again.
        connection_->drop(
            session_, Status(errc::protocol_error,
                             "receipt for sequence id " + std::to_string(receipt.sequence_id()) +
                                 " while " + std::to_string(queue_.pending().front().sequenceId) +
                                 " is the oldest unconfirmed message of " + describe()));
        return;
      }
      if (confirmed)
        confirmed->done({}, detail::protocol::toMessageId(receipt.message_id(), partition_));
      writeNew(queue_.refill([this](detail::protocol::EncodedMessage& m, std::uint64_t sequenceId) {
        m.metadata.set_sequence_id(sequenceId);
        return detail::protocol::encodeSend(producerId_, m);
      }));
      armSendTimer();
      drainedMaybeClose();
      return;
    }
    case proto::BaseCommand::SEND_ERROR: {
      const auto& error = command.send_error();
      auto status = detail::protocol::serverError(error.error(), error.message());
      if (error.error() == proto::TopicTerminatedError) {
        ended_ = Status(status.code, status.message + " (" + describe() + ")");
        failEverything(ended_);
        return;
      }
      network_->log.warn(describe() + ": the broker refused message " +
                         std::to_string(error.sequence_id()) + " (" + status.message +
                         "); reconnecting to write it again");
      connection_->drop(session_, status);
      return;
    }
    case proto::BaseCommand::CLOSE_PRODUCER:
    case proto::BaseCommand::TOPIC_MIGRATED:
      if (state_ == State::closing) {
        for (auto& done : queue_.takeAll()) {
          done(Status(errc::connection_lost, "the broker closed " + describe()), MessageId());
        }
        return finishClose({});
      }
      return reconnectLater(Status(errc::connection_lost, "the broker closed " + describe()));
    default:
      return;
  }
}

void PulsarProducer::armSendTimer() {
  auto next = queue_.nextDeadline();
  if (!next) {
    if (sendTimerAt_) sendTimer_.cancel();
    sendTimerAt_.reset();
    return;
  }
  if (sendTimerAt_ && *sendTimerAt_ <= *next) return;
  sendTimerAt_ = next;
  sendTimer_.expires_at(*next);
  sendTimer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    self->sendTimerAt_.reset();
    auto expired = self->queue_.expire(Clock::now());
    Status timeout(errc::timeout, "no receipt within " +
                                      std::to_string(self->options_.sendTimeout.count()) +
                                      " ms (sendTimeout) from " + self->describe());
    for (auto& done : expired) done(timeout, MessageId());
    self->writeNew(
        self->queue_.refill([&](detail::protocol::EncodedMessage& m, std::uint64_t sequenceId) {
          m.metadata.set_sequence_id(sequenceId);
          return detail::protocol::encodeSend(self->producerId_, m);
        }));
    self->armSendTimer();
    self->drainedMaybeClose();
  });
}

void PulsarProducer::failEverything(const Status& why) {
  for (auto& done : queue_.takeAll()) done(why, MessageId());
  armSendTimer();
  drainedMaybeClose();
}

// ----- closing ----------------------------------------------------------------------------------

void PulsarProducer::close(Callback<> done) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    if (self->state_ == State::closed) return done({});
    self->closeWaiters_.push_back(std::move(done));
    if (self->state_ == State::closing) return;
    bool connected = self->state_ == State::ready;
    self->state_ = State::closing;
    self->attempts_.cancel();
    if (!connected) {
      // Not connected: waiting for the broker to come back would hold close() for as long.
      Status closed(errc::closed, self->describe() + " was closed before it could send");
      for (auto& pending : self->queue_.takeAll()) pending(closed, MessageId());
      return self->finishClose({});
    }
    self->drainedMaybeClose();
  });
}

void PulsarProducer::drainedMaybeClose() {
  if (state_ != State::closing || !queue_.empty() || !connection_) return;
  auto connection = connection_;
  connection->detach(Connection::Kind::producer, producerId_);
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::closeProducer(producerId_, id), "CLOSE_PRODUCER",
                      [self = shared_from_this()](Response) {
                        asio::post(self->strand_, [self] { self->finishClose({}); });
                      });
  connection_.reset();  // nothing more goes out; the answer finishes the close
}

void PulsarProducer::finishClose(const Status&) {
  if (state_ == State::closed) return;
  state_ = State::closed;
  closed_ = true;
  if (connection_) connection_->detach(Connection::Kind::producer, producerId_);
  connection_.reset();
  attempts_.cancel();
  sendTimer_.cancel();
  auto waiters = std::move(closeWaiters_);
  closeWaiters_.clear();
  for (auto& done : waiters) done({});
}

void PulsarProducer::shutdown(const Status& why) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), why] {
    if (self->created_) {
      auto done = std::move(self->created_);
      self->created_ = nullptr;
      done(why, nullptr);
    }
    for (auto& done : self->queue_.takeAll()) done(why, MessageId());
    self->ended_ = why;
    self->finishClose(why);
  });
}

}  // namespace reconsume::detail::pulsar
