#include "retry/reconsumer.hpp"

#include "common/gather.hpp"
#include "retry/retry_properties.hpp"

namespace reconsume::detail::retry {

void Reconsumer::subscribe(const std::shared_ptr<client::ClientImpl>& client,
                           ConsumerOptions options, Callback<std::shared_ptr<Reconsumer>> done) {
  std::array<std::string, 2> legacy;
  try {
    legacy = legacyTopicsOf(options);
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()), nullptr);
  }
  auto lookups = Gather<int>::start(2, [client, options, done](const Status& status,
                                                               std::vector<int> partitions) {
    if (!status.ok()) return done(status, nullptr);
    auto topics = resolveRetryTopics(options, partitions[0], partitions[1]);
    auto spec = client::ConsumerSpec::of(options);
    // Pulsar delays delivery on Shared subscriptions only; earliest, so that no retry published
    // before this subscription existed is missed.
    spec.topics.push_back({topics.retryTopic, SubscriptionType::shared, InitialPosition::earliest});
    client::ConsumerImpl::create(
        client, std::move(spec),
        [options, topics, done](const Status& status,
                                std::shared_ptr<client::ConsumerImpl> consumer) {
          if (!status.ok()) return done(status, nullptr);
          done({}, std::make_shared<Reconsumer>(std::move(consumer), *options.retry, topics,
                                                options.topics));
        });
  });
  for (std::size_t i = 0; i < legacy.size(); ++i) {
    client->backend().partitions(legacy[i], lookups->slot(i));
  }
}

Reconsumer::Reconsumer(std::shared_ptr<client::ConsumerImpl> consumer, RetryPolicy policy,
                       RetryTopics topics, std::vector<std::string> givenTopics)
    : consumer_(std::move(consumer)),
      policy_(std::move(policy)),
      topics_(std::move(topics)),
      givenTopics_(std::move(givenTopics)) {
  ProducerOptions retry;
  retry.topic = topics_.retryTopic;
  retryProducer_ = std::make_shared<LazyProducer>(consumer_->clientPtr(), retry);
  ProducerOptions deadLetter;
  deadLetter.topic = topics_.deadLetterTopic;
  // Created with the topic, so dead letters are kept until someone replays or purges them.
  deadLetter.initialSubscription = topics_.deadLetterSubscription;
  deadLetterProducer_ = std::make_shared<LazyProducer>(consumer_->clientPtr(), deadLetter);
}

void Reconsumer::reconsume(const Message& message, const RetryRequest& request,
                           const std::string& reason,
                           const std::map<std::string, std::string>& properties, Callback<> done) {
  std::size_t slot = 0;
  if (auto status = consumer_->slotOf(message, slot); !status.ok()) return done(status);

  Route route;
  OutgoingMessage outgoing;
  auto& client = consumer_->client();
  try {
    route = decide(policy_, message.properties(), request);
    if (route.malformedCount) {
      client.log().warn("message " + message.id().toString() + " of " + message.topic() +
                        " has RECONSUMETIMES '" + message.property("RECONSUMETIMES").value_or("") +
                        "', which is not a count; counted as 0");
    }
    outgoing.properties =
        buildProperties(message.properties(), message.topic(), consumer_->options().subscription,
                        message.id(), route, client.clock()->now(), reason, properties);
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
  auto publishFailed = [consumer = consumer_, message, target = producer->topic(),
                        done](const Status& status) {
    // Not acknowledged: it comes back after the negative-ack delay.
    consumer->negativeAcknowledge(message);
    done(Status(status.code, "publishing message " + message.id().toString() + " to " + target +
                                 " failed: " + status.message));
  };
  producer->get([consumer = consumer_, message, outgoing = std::move(outgoing), publishFailed,
                 done](const Status& status, std::shared_ptr<client::ProducerImpl> producer) {
    if (!status.ok()) return publishFailed(status);
    producer->send(outgoing,
                   [consumer, message, publishFailed, done](const Status& sent, const MessageId&) {
                     if (!sent.ok()) return publishFailed(sent);
                     consumer->acknowledge(message, done);
                   });
  });
}

void Reconsumer::close(Callback<> done) {
  auto producers =
      countDown(2, [consumer = consumer_, done](const Status&) { consumer->close(done); });
  retryProducer_->close(producers);
  deadLetterProducer_->close(producers);
}

}  // namespace reconsume::detail::retry
