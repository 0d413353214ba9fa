#include "embedded/embedded_consumer.hpp"

#include "embedded/embedded_transaction.hpp"
#include "embedded/topic_lock.hpp"

namespace reconsume::detail::embedded {

EmbeddedConsumer::EmbeddedConsumer(std::shared_ptr<Topic> topic,
                                   std::shared_ptr<Subscription> subscription, std::uint64_t id,
                                   std::shared_ptr<Coordinator> coordinator,
                                   std::shared_ptr<Faults> faults)
    : topic_(std::move(topic)),
      subscription_(std::move(subscription)),
      id_(id),
      coordinator_(std::move(coordinator)),
      faults_(std::move(faults)) {}

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

Status EmbeddedConsumer::answer(Status status, const MessageId& id, const TxnId* txn) const {
  if (!faults_->takeLostAcknowledgementAnswer()) return status;
  return Status(errc::connection_lost,
                "the answer to the acknowledgement of " + id.toString() + " was lost (" +
                    (txn ? "in transaction " + txn->toString() + ", " : std::string()) +
                    "subscription '" + subscription_->name() + "' on topic " + topic_->name() +
                    ", injected fault); the broker answered: " +
                    (status.ok() ? std::string("acknowledged") : status.message));
}

void EmbeddedConsumer::acknowledge(const MessageData& message, BackendCallback<> done) {
  if (closed_) return done(closedStatus());
  topic_->acknowledge(*subscription_, message.id);
  done(answer({}, message.id, nullptr));
}

void EmbeddedConsumer::acknowledge(const MessageData& message,
                                   const std::shared_ptr<client::BackendTransaction>& transaction,
                                   BackendCallback<> done) {
  if (closed_) return done(closedStatus());
  Status status;
  auto asked = [&] {
    return "acknowledge message " + message.id.toString() + " on subscription '" +
           subscription_->name() + "' of topic " + topic_->name();
  };
  const auto* txn = EmbeddedTransaction::resolve(transaction, *coordinator_, asked, status);
  if (txn == nullptr) return done(status);
  done(answer(topic_->acknowledge(*subscription_, message.id, txn->ref()), message.id, &txn->id()));
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
  TopicLock::runOutsideTopicLocks([topic = topic_, subscription = subscription_, id = id_] {
    topic->unsubscribe(subscription, id);
  });
}

}  // namespace reconsume::detail::embedded
