#include "embedded/embedded_consumer.hpp"

#include "embedded/topic_lock.hpp"

namespace reconsume::detail::embedded {

EmbeddedConsumer::EmbeddedConsumer(std::shared_ptr<Topic> topic,
                                   std::shared_ptr<Subscription> subscription, std::uint64_t id)
    : topic_(std::move(topic)), subscription_(std::move(subscription)), id_(id) {}

EmbeddedConsumer::~EmbeddedConsumer() {
  closeNow();
}

Status EmbeddedConsumer::closedStatus() const {
  return Status(errc::closed, "consumer of subscription '" + subscription_->name() + "' on topic " +
                                  topic_->name() + " is closed");
}

void EmbeddedConsumer::flow(std::uint32_t permits) {
  if (!closed_) topic_->flow(*subscription_, id_, permits);
}

void EmbeddedConsumer::acknowledge(const MessageData& message, Callback<> done) {
  if (closed_) return done(closedStatus());
  topic_->acknowledge(*subscription_, message.id);
  done({});
}

void EmbeddedConsumer::redeliver(const std::vector<MessageId>& ids) {
  if (!closed_) topic_->redeliver(*subscription_, id_, ids);
}

void EmbeddedConsumer::redeliverAll() {
  if (!closed_) topic_->redeliverAll(*subscription_, id_);
}

void EmbeddedConsumer::seek(const MessageId& id, Callback<> done) {
  if (closed_) return done(closedStatus());
  topic_->seek(*subscription_, id);
  done({});
}

void EmbeddedConsumer::lastMessageId(Callback<MessageId> done) {
  if (closed_) return done(closedStatus(), MessageId());
  done({}, topic_->lastMessageId());
}

void EmbeddedConsumer::close(Callback<> done) {
  closeNow();
  done({});
}

void EmbeddedConsumer::closeNow() {
  if (closed_.exchange(true)) return;
  // Possibly inside a sink (the last reference dropped there): see topic_lock.hpp.
  TopicLock::runOutsideTopicLocks(
      [topic = topic_, subscription = subscription_, id = id_] {
        topic->unsubscribe(subscription, id);
      });
}

}  // namespace reconsume::detail::embedded
