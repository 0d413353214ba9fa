#include "retry/reconsumer.hpp"

#include "common/gather.hpp"
#include "retry/retry_properties.hpp"

namespace reconsume::detail::retry {

using detail::Status;

Reconsumer::Reconsumer(std::shared_ptr<detail::client::ClientImpl> client, RetryPolicy policy,
                       RetryTopics topics)
    : client_(std::move(client)), policy_(std::move(policy)), topics_(std::move(topics)) {
  ProducerOptions retry;
  retry.topic = topics_.retryTopic;
  retryProducer_ = std::make_shared<LazyProducer>(client_, retry);
  ProducerOptions deadLetter;
  deadLetter.topic = topics_.deadLetterTopic;
  // Created with the topic, so dead letters are kept until someone replays or purges them.
  deadLetter.initialSubscription = topics_.deadLetterSubscription;
  deadLetterProducer_ = std::make_shared<LazyProducer>(client_, deadLetter);
}

void Reconsumer::reconsume(detail::client::ConsumerImpl& consumer, const Message& message,
                           const RetryRequest& request, const std::string& reason,
                           const std::map<std::string, std::string>& properties,
                           detail::Callback<> done) {
  std::size_t slot = 0;
  if (auto status = consumer.slotOf(message, slot); !status.ok()) return done(status);

  Route route;
  OutgoingMessage outgoing;
  try {
    route = decide(policy_, message.properties(), request);
    if (route.malformedCount) {
      client_->log().warn("message " + message.id().toString() + " of " + message.topic() +
                          " has RECONSUMETIMES '" +
                          message.property("RECONSUMETIMES").value_or("") +
                          "', which is not a count; counted as 0");
    }
    outgoing.properties =
        buildProperties(message.properties(), message.topic(), consumer.options().subscription,
                        message.id(), route, client_->clock()->now(), reason, properties);
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()));
  }
  outgoing.payload = std::string(message.data());
  outgoing.key = message.key();
  outgoing.keyIsBase64 = message.keyIsBase64();
  outgoing.orderingKey = message.orderingKey();
  outgoing.eventTime = message.eventTime();
  bool toRetry = route.destination == Destination::retryTopic;
  if (toRetry) outgoing.deliverAfter = route.delay;

  auto& producer = toRetry ? retryProducer_ : deadLetterProducer_;
  auto target = producer->topic();
  auto self = consumer.shared_from_this();
  auto publishFailed = [self, message, target, done](const Status& status) {
    // Not acknowledged: it comes back after the negative-ack delay.
    self->negativeAcknowledge(message);
    done(Status(status.code, "publishing message " + message.id().toString() + " to " + target +
                                 " failed: " + status.message));
  };
  producer->get([self, message, outgoing = std::move(outgoing), publishFailed, done](
                    const Status& status, std::shared_ptr<detail::client::ProducerImpl> producer) {
    if (!status.ok()) return publishFailed(status);
    producer->send(outgoing,
                   [self, message, publishFailed, done](const Status& sent, const MessageId&) {
                     if (!sent.ok()) return publishFailed(sent);
                     self->acknowledge(message, done);
                   });
  });
}

void Reconsumer::close(detail::Callback<> done) {
  auto finish = detail::countDown(2, std::move(done));
  retryProducer_->close(finish);
  deadLetterProducer_->close(finish);
}

Status reconsumerOf(const detail::client::ConsumerImpl& consumer, Reconsumer*& out) {
  out = static_cast<Reconsumer*>(consumer.extension.get());
  if (out) return {};
  return Status(errc::invalid_argument,
                "reconsumeLater and deadLetter need a retry policy: subscription '" +
                    consumer.options().subscription +
                    "' was created without ConsumerOptions::retry");
}

}  // namespace reconsume::detail::retry
