// A consumer's life: subscribing (the attachment's hooks), the session lost, closing.
#include "pulsar/pulsar_consumer.hpp"

#include <boost/asio/post.hpp>

#include "common/topic_name.hpp"
#include "protocol/commands.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

PulsarConsumer::PulsarConsumer(std::shared_ptr<Network> network, client::SubscribeSpec spec,
                               std::shared_ptr<client::MessageSink> sink)
    : network_(std::move(network)),
      spec_(std::move(spec)),
      sink_(std::move(sink)),
      partition_(partitionIndexOf(spec_.topic)),
      topicName_(spec_.topic),
      strand_(asio::make_strand(network_->executor)),
      attachment_(strand_, network_, *this, spec_.topic),
      permits_(static_cast<std::uint32_t>(std::max(1, spec_.receiverQueueSize))),
      position_(spec_.durable ? std::nullopt : spec_.startMessageId, spec_.startMessageIdInclusive),
      deferredTimer_(strand_, network_->clock()) {}

void PulsarConsumer::subscribe(std::shared_ptr<Network> network, OpenHandles<Handle>& handles,
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
  if (!handles.add(consumer)) {
    consumer->shutdown(Status(errc::closed, "the client is closed"));
    return done(Status(errc::closed, "the client is closed"), nullptr);
  }
  asio::post(consumer->strand_, [consumer, done = std::move(done)]() mutable {
    consumer->attachment_.start([consumer, done = std::move(done)](const Status& status) {
      done(status, status.ok() ? consumer : nullptr);
    });
  });
}

std::string PulsarConsumer::describe() const {
  return std::string(spec_.durable ? "consumer" : "reader") + " of " + spec_.topic +
         " (subscription '" + spec_.subscription + "')";
}

std::string PulsarConsumer::createWhat() const {
  return "SUBSCRIBE " + spec_.topic + " (subscription '" + spec_.subscription + "')";
}

std::string PulsarConsumer::creationFailure() const {
  return "cannot subscribe to " + spec_.topic + " (subscription '" + spec_.subscription + "')";
}

// ----- attachment -------------------------------------------------------------------------------

proto::BaseCommand PulsarConsumer::createRequest(std::uint64_t id, std::uint64_t requestId) {
  protocol::SubscribeRequest request;
  request.topic = spec_.topic;
  request.subscription = spec_.subscription;
  request.type = spec_.type;
  request.consumerId = id;
  request.requestId = requestId;
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
  return protocol::subscribe(request);
}

proto::BaseCommand PulsarConsumer::closeRequest(std::uint64_t id, std::uint64_t requestId) {
  return protocol::closeConsumer(id, requestId);
}

void PulsarConsumer::onAttached(const Response&, bool first) {
  // A durable subscription redelivers whatever was not acknowledged, so what the sink holds is
  // stale; a reader resumes after what it handed on and keeps its queue.
  bool keep = !first && !resetOnSubscribe_;
  resetOnSubscribe_ = spec_.durable;
  if (!keep) sink_->onReset(spec_.topic);
  // Operations that waited go first: acknowledgements made while there was no subscription, and
  // those sent again after a lost answer, reach the broker before it is asked for messages —
  // else it redelivers them and the application sees them twice. The waiting acknowledgements
  // only queue themselves (ackEntry posts their flush), so they are written here, in one ACK,
  // ahead of the FLOW; so are those the application made since the last drain.
  auto permits = permits_.resubscribed(keep);
  runDeferred();
  drainAcks();
  flushAcks();
  if (position_.startsAtUnknownLast()) {
    findTheLastMessage();  // asks for messages once it is there
  } else {
    sendFlow(permits);
  }
  if (first) network_->log.debug(describe() + " is subscribed");
  if (!first) network_->log.info(describe() + " is subscribed again");
}

void PulsarConsumer::onSessionLost(std::uint64_t session, const Status& why) {
  asio::post(strand_, [self = shared_from_this(), session, why] {
    self->attachment_.sessionLost(session, why);
  });
}

void PulsarConsumer::onFinished(const AttachMachine::Action& how) {
  using Kind = AttachMachine::Action::Kind;
  deferredTimer_.cancel();
  if (how.kind == Kind::ended) {
    network_->log.error(describe() + " cannot subscribe again: " + how.status.message);
    failDeferred(how.status);
    sink_->onEnded(spec_.topic, how.status);
    return;
  }
  failDeferred(how.status.ok() ? Status(errc::closed, describe() + " is closed") : how.status);
}

// ----- closing ----------------------------------------------------------------------------------

void PulsarConsumer::close(Callback<> done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    // Acknowledgements made just before go out first: the broker ignores an ACK that arrives after
    // CLOSE_CONSUMER.
    self->drainAcks();
    self->flushAcks();
    self->attachment_.close(std::move(done));
  });
}

void PulsarConsumer::onClosing() {
  failDeferred(Status(errc::closed, describe() + " is closed"));
  attachment_.closeRemote();
}

void PulsarConsumer::shutdown(const Status& why) {
  asio::post(strand_, [self = shared_from_this(), why] { self->attachment_.shutdown(why); });
}

}  // namespace reconsume::detail::pulsar
