#include "embedded/embedded_producer.hpp"

#include "common/epoch_time.hpp"
#include "common/outgoing_check.hpp"
#include "embedded/embedded_transaction.hpp"
#include "embedded/topic_lock.hpp"
#include "protocol/wire_size.hpp"

namespace reconsume::detail::embedded {

EmbeddedProducer::EmbeddedProducer(std::shared_ptr<Topic> topic, ProducerState state,
                                   std::uint64_t id, std::uint64_t maxMessageSize,
                                   Compression compression,
                                   std::shared_ptr<Coordinator> coordinator)
    : topic_(std::move(topic)),
      state_(std::make_shared<ProducerState>(std::move(state))),
      name_(state_->name),
      id_(id),
      maxMessageSize_(maxMessageSize),
      compression_(compression),
      coordinator_(std::move(coordinator)) {}

EmbeddedProducer::~EmbeddedProducer() {
  closeNow();
}

Status EmbeddedProducer::validate(const OutgoingData& message) const {
  if (auto check = checkOutgoing(message); !check.ok()) return check;
  // Far under the limit (nearly every message): nothing to encode.
  if (protocol::wireSizeAtMost(message, name_.str(), compression_) <= maxMessageSize_) return {};
  // The sequence id counted is 0: at most a few bytes less than the producer's own.
  const auto size = protocol::wireSize(
      message, name_.str(), 0, toEpochMillis(std::chrono::system_clock::now()), compression_);
  if (size <= maxMessageSize_) return {};
  return Status(errc::too_large,
                "message of " + std::to_string(size) + " bytes (payload " +
                    (compression_ == Compression::none ? "" : "compressed ") + "and metadata) " +
                    "exceeds the broker's maximum message size " + std::to_string(maxMessageSize_) +
                    " (topic " + topic_->name() + ")");
}

Status EmbeddedProducer::closedStatus() const {
  return Status(errc::closed,
                "producer '" + state_->name + "' of topic " + topic_->name() + " is closed");
}

void EmbeddedProducer::send(OutgoingData message, BackendCallback<MessageId>&& done) {
  if (closed_) return done(closedStatus(), MessageId());
  publish(std::move(message), nullptr, done);
}

void EmbeddedProducer::send(OutgoingData message,
                            const std::shared_ptr<client::BackendTransaction>& transaction,
                            BackendCallback<MessageId> done) {
  if (closed_) return done(closedStatus(), MessageId());
  Status status;
  auto asked = [&] { return "publish to topic " + topic_->name(); };
  const auto* txn = EmbeddedTransaction::resolve(transaction, *coordinator_, asked, status);
  if (txn == nullptr) return done(status, MessageId());
  auto ref = txn->ref();
  publish(std::move(message), &ref, done);
}

void EmbeddedProducer::publish(OutgoingData&& message, const TxnRef* txn,
                               BackendCallback<MessageId>& done) {
  if (auto status = validate(message); !status.ok()) return done(status, MessageId());
  auto data = std::make_shared<MessageData>();
  data->topic = topic_->sharedName();
  data->payload = std::move(message.payload);
  data->properties = std::move(message.properties);
  data->partitionKey = std::move(message.key);
  data->partitionKeyIsBase64 = message.keyIsBase64;
  data->orderingKey = std::move(message.orderingKey);
  if (message.eventTime) {
    data->eventTimeMs = static_cast<std::uint64_t>(
        std::chrono::floor<std::chrono::milliseconds>(message.eventTime->time_since_epoch())
            .count());
  }
  data->producerName = name_;
  MessageId id;
  auto status =
      topic_->publish(std::move(data), *state_, message.deliverAt, message.deliverAfter, id, txn);
  done(status, status.ok() ? id : MessageId());
}

void EmbeddedProducer::close(Callback<> done) {
  closeNow();
  done({});
}

void EmbeddedProducer::closeNow() {
  if (closed_.exchange(true)) return;
  // Possibly inside a sink (the last reference dropped there): see topic_lock.hpp.
  TopicLock::runOutsideTopicLocks(
      [topic = topic_, state = state_] { topic->closeProducer(*state); });
}

}  // namespace reconsume::detail::embedded
