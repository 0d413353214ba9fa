#include "pulsar/pulsar_consumer.hpp"

#include <boost/asio/post.hpp>

#include "common/topic_name.hpp"
#include "protocol/commands.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/message_id.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

// After this many deliveries of an entry whose payload cannot be unpacked, it is discarded
// (acknowledged with the validation error, as the Java client does at once).
constexpr int kCorruptDeliveriesBeforeDiscard = 3;

}  // namespace

PulsarConsumer::PulsarConsumer(std::shared_ptr<Network> network, client::SubscribeSpec spec,
                               std::shared_ptr<client::MessageSink> sink)
    : network_(std::move(network)),
      spec_(std::move(spec)),
      sink_(std::move(sink)),
      partition_(partitionIndexOf(spec_.topic)),
      strand_(asio::make_strand(network_->executor)),
      permits_(static_cast<std::uint32_t>(std::max(1, spec_.receiverQueueSize))),
      position_(spec_.durable ? std::nullopt : spec_.startMessageId, spec_.startMessageIdInclusive),
      attempts_(strand_, network_),
      deferredTimer_(strand_) {}

void PulsarConsumer::subscribe(std::shared_ptr<Network> network,
                               std::shared_ptr<OpenHandles> handles,
                               const client::SubscribeSpec& spec,
                               std::shared_ptr<client::MessageSink> sink,
                               Callback<std::shared_ptr<client::BackendConsumer>> done) {
  if (spec.subscription.empty()) {
    return done(Status(errc::invalid_argument,
                       "the subscription name for topic " + spec.topic + " is empty"),
                nullptr);
  }
  std::shared_ptr<PulsarConsumer> consumer(
      new PulsarConsumer(std::move(network), spec, std::move(sink)));
  if (!handles->add(consumer)) {
    consumer->closed_ = true;
    consumer->state_ = State::closed;
    return done(Status(errc::closed, "the client is closed"), nullptr);
  }
  asio::post(consumer->strand_, [consumer, done = std::move(done)]() mutable {
    if (consumer->state_ == State::closed) {
      return done(Status(errc::closed, "the client is closed"), nullptr);
    }
    consumer->created_ = std::move(done);
    consumer->attempts_.beginCreation();
    consumer->connect();
  });
}

PulsarConsumer::~PulsarConsumer() {
  if (connection_ && state_ != State::closed) {
    connection_->detach(Connection::Kind::consumer, consumerId_);
    auto id = connection_->newRequestId();
    connection_->request(id, detail::protocol::closeConsumer(consumerId_, id), "CLOSE_CONSUMER",
                         [](Response) {});
  }
}

std::string PulsarConsumer::describe() const {
  return std::string(spec_.durable ? "consumer" : "reader") + " of " + spec_.topic +
         " (subscription '" + spec_.subscription + "')";
}

// ----- subscribing ------------------------------------------------------------------------------

void PulsarConsumer::connect() {
  attempts_.lookUp(spec_.topic, state_ == State::subscribing,
                   [self = shared_from_this()](std::uint64_t attempt, const Status& status,
                                               const BrokerAddress& address) {
                     self->onLookup(attempt, status, address);
                   });
}

void PulsarConsumer::onLookup(std::uint64_t attempt, const Status& status,
                              const BrokerAddress& address) {
  if (!attempts_.isCurrent(attempt) ||
      (state_ != State::subscribing && state_ != State::resubscribing)) {
    return;
  }
  if (!status.ok()) return attemptFailed(status);
  auto connection = network_->pool->get(address);
  auto consumerId = ++network_->lastConsumerId;
  connection->attach(Connection::Kind::consumer, consumerId, weak_from_this());

  detail::protocol::SubscribeRequest request;
  request.topic = spec_.topic;
  request.subscription = spec_.subscription;
  request.type = spec_.type;
  request.consumerId = consumerId;
  request.requestId = connection->newRequestId();
  request.consumerName = spec_.consumerName;
  request.initialPosition = spec_.initialPosition;
  request.durable = spec_.durable;
  if (epoch_ > 0) request.consumerEpoch = epoch_;
  if (!spec_.durable) {
    auto from = position_.resumeFrom();
    if (!from || *from == MessageId::earliest()) {
      request.initialPosition = InitialPosition::earliest;
    } else if (*from == MessageId::latest()) {
      request.initialPosition = InitialPosition::latest;
    } else {
      // The broker starts a non-durable cursor after the id given: give the entry before, so the
      // start entry itself comes too; ReaderPosition drops what is at or before the position.
      request.startMessageId = MessageId(from->ledger(), from->entry() - 1, partition_);
    }
  }
  connection->request(
      request.requestId, detail::protocol::subscribe(request),
      "SUBSCRIBE " + spec_.topic + " (subscription '" + spec_.subscription + "')",
      [self = shared_from_this(), attempt, connection, consumerId](Response response) {
        asio::post(self->strand_,
                   [self, attempt, connection, consumerId, response = std::move(response)] {
                     self->onSubscribed(attempt, connection, consumerId, std::move(response));
                   });
      });
}

void PulsarConsumer::onSubscribed(std::uint64_t attempt,
                                  const std::shared_ptr<Connection>& connection,
                                  std::uint64_t consumerId, Response response) {
  bool current = attempts_.isCurrent(attempt) &&
                 (state_ == State::subscribing || state_ == State::resubscribing);
  if (!current) {
    connection->detach(Connection::Kind::consumer, consumerId);
    if (response.status.ok()) {
      auto id = connection->newRequestId();
      connection->request(id, detail::protocol::closeConsumer(consumerId, id), "CLOSE_CONSUMER",
                          [](Response) {});
    }
    return;
  }
  if (!response.status.ok()) {
    connection->detach(Connection::Kind::consumer, consumerId);
    return attemptFailed(response.status);
  }
  bool first = state_ == State::subscribing;
  connection_ = connection;
  consumerId_ = consumerId;
  session_ = response.session;
  state_ = State::ready;
  seeking_ = false;
  closedDuringSeek_ = false;
  attempts_.succeeded();
  // A durable subscription redelivers whatever was not acknowledged, so what the sink holds is
  // stale; a reader resumes after what it handed on and keeps its queue.
  bool keep = !first && !resetOnSubscribe_;
  resetOnSubscribe_ = spec_.durable;
  if (!keep) sink_->onReset(spec_.topic);
  sendFlow(permits_.resubscribed(keep));
  if (!first) network_->log.info(describe() + " is subscribed again");
  runDeferred();
  if (created_) {
    auto done = std::move(created_);
    created_ = nullptr;
    done({}, shared_from_this());
  }
}

void PulsarConsumer::attemptFailed(const Status& status) {
  if (state_ == State::subscribing) {
    auto again = [self = shared_from_this()] {
      if (self->state_ == State::subscribing) self->connect();
    };
    if (attempts_.retryCreation(status, again)) return;
    state_ = State::closed;
    closed_ = true;
    auto done = std::move(created_);
    created_ = nullptr;
    if (done) {
      done(Status(status.code, "cannot subscribe to " + spec_.topic + " (subscription '" +
                                   spec_.subscription + "'): " + status.message),
           nullptr);
    }
    return;
  }
  if (state_ != State::resubscribing) return;
  if (status.code == errc::not_found) {
    network_->log.error(describe() + " cannot subscribe again: " + status.message);
    state_ = State::closed;
    for (auto& deferred : std::exchange(deferred_, {})) deferred.run(status);
    sink_->onEnded(spec_.topic, status);
    return;
  }
  resubscribeLater(status, false);
}

void PulsarConsumer::resubscribeLater(const Status& why, bool resetQueue, bool now) {
  if (resetQueue) resetOnSubscribe_ = true;
  if (connection_) connection_->detach(Connection::Kind::consumer, consumerId_);
  connection_.reset();
  state_ = State::resubscribing;
  auto wait = attempts_.retryLater(
      [self = shared_from_this()] {
        if (self->state_ == State::resubscribing) self->connect();
      },
      now);
  network_->log.info(describe() + " subscribes again in " + std::to_string(wait.count()) +
                     " ms: " + why.message);
}

void PulsarConsumer::onSessionLost(std::uint64_t session, const Status& why) {
  asio::post(strand_, [self = shared_from_this(), session, why] {
    if (session != self->session_ || !self->connection_) return;
    if (self->state_ == State::ready) return self->resubscribeLater(why, false);
    if (self->state_ == State::closing) self->finishClose();
  });
}

// ----- frames -----------------------------------------------------------------------------------

void PulsarConsumer::onFrame(detail::protocol::Frame frame) {
  asio::post(strand_, [self = shared_from_this(), frame = std::move(frame)]() mutable {
    self->handleFrame(frame);
  });
}

void PulsarConsumer::handleFrame(detail::protocol::Frame& frame) {
  if (state_ != State::ready) return;
  switch (frame.command.type()) {
    case proto::BaseCommand::MESSAGE:
      if (frame.command.message().consumer_id() != consumerId_) return;
      return handleMessage(frame);
    case proto::BaseCommand::CLOSE_CONSUMER:
    case proto::BaseCommand::TOPIC_MIGRATED:
      if (seeking_) {
        closedDuringSeek_ = true;  // the SEEK's answer decides where to start again
        return;
      }
      return resubscribeLater(Status(errc::connection_lost, "the broker closed " + describe()),
                              false);
    case proto::BaseCommand::REACHED_END_OF_TOPIC:
      sink_->onEnded(spec_.topic,
                     Status(errc::broker_error, "topic " + spec_.topic +
                                                    " was terminated and all of it was delivered"));
      return;
    case proto::BaseCommand::ACTIVE_CONSUMER_CHANGE:
      network_->log.debug(
          describe() + " is " +
          (frame.command.active_consumer_change().is_active() ? "now" : "no longer") +
          " the active consumer");
      return;
    default:
      return;
  }
}

void PulsarConsumer::handleMessage(detail::protocol::Frame& frame) {
  const auto& command = frame.command.message();
  const auto inEntry =
      static_cast<std::uint32_t>(frame.metadata && frame.metadata->has_num_messages_in_batch()
                                     ? std::max(1, frame.metadata->num_messages_in_batch())
                                     : 1);
  if (seeking_ || (command.has_consumer_epoch() && command.consumer_epoch() < epoch_)) {
    // Sent before a seek or a redelivery of everything: it comes again where it belongs.
    permits_.received(inEntry);
    return returnPermits(inEntry);
  }
  detail::protocol::UnpackedEntry entry;
  detail::protocol::EntryContext context{spec_.topic, partition_};
  auto status = detail::protocol::unpackEntry(frame, context, entry);
  const std::pair key{static_cast<std::int64_t>(command.message_id().ledgerid()),
                      static_cast<std::int64_t>(command.message_id().entryid())};
  if (!status.ok()) {
    permits_.received(inEntry);
    if (status.code == errc::unsupported) {
      network_->log.error(describe() + ": " + status.message + "; left unacknowledged");
      return returnPermits(inEntry);
    }
    if (++corruptDeliveries_[key] < kCorruptDeliveriesBeforeDiscard) {
      // Maybe damaged on the way: a new session gets it from the broker again.
      network_->log.warn(describe() + ": " + status.message + "; reconnecting to get it again");
      connection_->drop(session_, status);
      return;
    }
    network_->log.error(describe() + ": " + status.message + " (delivered " +
                        std::to_string(kCorruptDeliveriesBeforeDiscard) +
                        " times); discarded as corrupt");
    corruptDeliveries_.erase(key);
    connection_->send(session_, detail::protocol::encodeFrame(detail::protocol::discardCorrupt(
                                    consumerId_, MessageId(key.first, key.second, partition_),
                                    proto::CommandAck::BatchDeSerializeError)));
    return returnPermits(inEntry);
  }
  permits_.received(static_cast<std::uint32_t>(entry.messages.size()) +
                    static_cast<std::uint32_t>(entry.skipped));
  std::uint32_t dropped = static_cast<std::uint32_t>(entry.skipped);
  std::shared_ptr<detail::protocol::BatchAckTracker> tracker;
  if (entry.tracker) tracker = batches_.trackerFor(key, entry.tracker);
  for (auto& received : entry.messages) {
    const auto& id = received.data.id;
    if (tracker && tracker->isAcknowledged(id.batchIndex())) {
      ++dropped;
      continue;
    }
    if (!spec_.durable && !position_.accept(id)) {
      ++dropped;
      continue;
    }
    auto data = std::make_shared<MessageData>(std::move(received.data));
    data->backendState = tracker;
    sink_->onMessage(std::move(data));
  }
  if (dropped > 0) returnPermits(dropped);
}

void PulsarConsumer::sendFlow(std::uint32_t permits) {
  if (permits == 0 || state_ != State::ready || !connection_) return;
  connection_->send(session_,
                    detail::protocol::encodeFrame(detail::protocol::flow(consumerId_, permits)));
}

void PulsarConsumer::returnPermits(std::uint32_t permits) {
  permits_.granted(permits);
  sendFlow(permits);
}

// ----- closing ----------------------------------------------------------------------------------

void PulsarConsumer::close(Callback<> done) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    if (self->state_ == State::closed) return done({});
    self->closeWaiters_.push_back(std::move(done));
    if (self->state_ == State::closing) return;
    bool connected = self->state_ == State::ready;
    self->state_ = State::closing;
    self->attempts_.cancel();
    Status closed(errc::closed, self->describe() + " is closed");
    for (auto& deferred : std::exchange(self->deferred_, {})) deferred.run(closed);
    if (self->created_) {
      auto created = std::move(self->created_);
      self->created_ = nullptr;
      created(closed, nullptr);
    }
    if (!connected) return self->finishClose();
    auto connection = self->connection_;
    auto requestId = connection->newRequestId();
    connection->request(requestId, detail::protocol::closeConsumer(self->consumerId_, requestId),
                        "CLOSE_CONSUMER " + self->spec_.topic, [self](Response) {
                          asio::post(self->strand_, [self] { self->finishClose(); });
                        });
  });
}

void PulsarConsumer::finishClose() {
  if (state_ == State::closed) return;
  state_ = State::closed;
  closed_ = true;
  if (connection_) connection_->detach(Connection::Kind::consumer, consumerId_);
  connection_.reset();
  attempts_.cancel();
  deferredTimer_.cancel();
  for (auto& done : std::exchange(closeWaiters_, {})) done({});
}

void PulsarConsumer::shutdown(const Status& why) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), why] {
    if (self->created_) {
      auto done = std::move(self->created_);
      self->created_ = nullptr;
      done(why, nullptr);
    }
    for (auto& deferred : std::exchange(self->deferred_, {})) deferred.run(why);
    self->finishClose();
  });
}

}  // namespace reconsume::detail::pulsar
