#include "retry/reconsumer.hpp"

#include "common/gather.hpp"
#include "common/message_data.hpp"
#include "common/shared_reading.hpp"
#include "retry/poison_dead_letters.hpp"
#include "retry/republish.hpp"
#include "retry/retry_properties.hpp"

namespace reconsume::detail::retry {

namespace {

std::shared_ptr<LazyProducer> deadLetterProducer(const std::shared_ptr<client::ClientImpl>& client,
                                                 const RetryTopics& topics) {
  ProducerOptions options;
  options.topic = topics.deadLetterTopic;
  // Created with the topic, so dead letters are kept until someone replays or purges them.
  options.initialSubscription = topics.deadLetterSubscription;
  options.batching = deadLetterBatching();
  return std::make_shared<LazyProducer>(client, options);
}

}  // namespace

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
    auto deadLetters = deadLetterProducer(client, topics);
    auto spec = client::ConsumerSpec::of(options);
    if (CategoryRoutes(options, client, deadLetters).hasAnyPolicy()) {
      // Pulsar delays delivery on Shared and Key_Shared subscriptions only: Key_Shared when the
      // main subscription is (as the Java and Go clients subscribe, the type of the main one),
      // else Shared — on Exclusive or Failover the broker would hand retries out at once.
      // Earliest, so that no retry published before this subscription existed is missed.
      auto type = options.subscriptionType == SubscriptionType::keyShared
                      ? SubscriptionType::keyShared
                      : SubscriptionType::shared;
      spec.topics.push_back({topics.retryTopic, type, InitialPosition::earliest});
    }
    if (options.maxRedeliverCount > 0) {
      spec.poisonSink = std::make_shared<PoisonDeadLetters>(deadLetters, options.subscription,
                                                            options.maxRedeliverCount);
    }
    client::ConsumerImpl::create(
        client, std::move(spec),
        [options, topics, deadLetters, done](const Status& status,
                                             std::shared_ptr<client::ConsumerImpl> consumer) {
          if (!status.ok()) return done(status, nullptr);
          done({}, std::make_shared<Reconsumer>(std::move(consumer), options, topics, deadLetters));
        });
  });
  for (std::size_t i = 0; i < legacy.size(); ++i) {
    // Asking must not create them (a broker with allowAutoTopicCreationType=partitioned would).
    client->backend().existingPartitions(legacy[i], lookups->slot(i));
  }
}

Reconsumer::Reconsumer(std::shared_ptr<client::ConsumerImpl> consumer,
                       const ConsumerOptions& options, RetryTopics topics,
                       std::shared_ptr<LazyProducer> deadLetters)
    : consumer_(std::move(consumer)),
      transactional_(options.transactionalRetry),
      errorRules_(options.errorRules),
      topics_(std::move(topics)),
      givenTopics_(options.topics),
      deadLetterProducer_(deadLetters),
      routes_(options, consumer_->clientPtr(), std::move(deadLetters)),
      moveMetrics_(
          std::make_shared<MoveMetrics>(consumer_->client().metricsPtr(), options.subscription)) {
  if (routes_.hasAnyPolicy()) {
    ProducerOptions retry;
    retry.topic = topics_.retryTopic;
    // Retry batching: copies due within the window share an entry (never early).
    retry.batching.delayedWindow = options.retryBatchingWindow;
    retryProducer_ = std::make_shared<LazyProducer>(consumer_->clientPtr(), retry);
  }
}

void Reconsumer::reconsume(const Message& message, const RetryRequest& request,
                           const std::string& reason,
                           const std::map<std::string, std::string>& properties, Callback<> done) {
  auto choice = routes_.choose(request.category);
  bool toDeadLetters = choice.deadLetterAtOnce || request.kind == RetryRequest::Kind::deadLetter;
  if (!choice.policy && !toDeadLetters) {
    return done(Status(
        errc::invalid_argument,
        "reconsumeLater and deadLetter need a retry policy: subscription '" +
            consumer_->options().subscription + "' was created without ConsumerOptions::retry" +
            (request.category ? " and category '" + *request.category + "' has no policy of its own"
                              : std::string())));
  }
  std::size_t slot = 0;
  if (auto status = consumer_->slotOf(message, slot); !status.ok()) return done(status);
  auto& client = consumer_->client();
  const auto started = client.clock()->steadyNow();
  const auto now = client.clock()->now();  // one reading for the route and the properties
  Route route;
  OutgoingData outgoing;
  const Properties& incoming = dataOf(message).properties;
  try {
    if (toDeadLetters) {
      // deadLetter, or a category routed to the dead-letter topic: no retry, whatever was asked.
      route = explicitDeadLetter(incoming, request.category);
    } else {
      route =
          applyTimeLimit(*choice.policy, incoming, decide(*choice.policy, incoming, request), now);
    }
    if (route.malformedCount) {
      client.log().warn("message " + message.id().toString() + " of " + message.topic() +
                        " has RECONSUMETIMES '" + message.property("RECONSUMETIMES").value_or("") +
                        "', which is not a count; counted as 0");
    }
    outgoing =
        republished(message,
                    buildProperties(incoming, message.topic(), consumer_->options().subscription,
                                    message.id(), route, now, reason, properties),
                    route);
    if (outgoing.deliverAfter && client.systemClock()) {
      // Due at the delay after the reading above, which the producer would otherwise take again
      // (about 30 ns on a virtual machine; docs/PERFORMANCE.md, the eleventh round).
      outgoing.deliverAt = now + *outgoing.deliverAfter;
      outgoing.deliverAfter.reset();
    }
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()));
  } catch (const std::exception& e) {
    // From the application's code: a custom delay function (RetryPolicy::custom) or error rule.
    return done(Status(errc::invalid_argument,
                       "reconsuming message " + message.id().toString() + " of " + message.topic() +
                           " failed in the retry policy's own code: " + e.what()));
  }
  const auto& producer =
      route.destination == Destination::retryTopic ? retryProducer_ : choice.deadLetters;
  if (!transactional_) {
    // The send starts at the move's start (common/shared_reading.hpp).
    SharedReading reading(*client.clock(), started);
    return moveAtLeastOnce(message, std::move(outgoing), *producer, std::move(route), started,
                           std::move(done));
  }
  done = [metrics = moveMetrics_, route, clock = client.clock(), started,
          done = std::move(done)](const Status& status) {
    if (status.ok()) metrics->moved(route, SharedReading::steadyNow(*clock) - started);
    done(status);
  };
  moveInTransaction(message, std::move(outgoing), std::move(producer), std::move(done));
}

void Reconsumer::close(Callback<> done) {
  auto producers =
      countDown(3, [consumer = consumer_, done](const Status&) { consumer->close(done); });
  routes_.close(producers);
  if (retryProducer_) {
    retryProducer_->close(producers);
  } else {
    producers({});
  }
  deadLetterProducer_->close(producers);
}

}  // namespace reconsume::detail::retry
