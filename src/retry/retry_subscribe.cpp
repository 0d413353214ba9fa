#include "retry/retry_subscribe.hpp"

#include "common/gather.hpp"
#include "common/topic_name.hpp"
#include "config/consumer_options_check.hpp"
#include "retry/reconsumer.hpp"
#include "retry/retry_topics.hpp"

namespace reconsume::detail::retry {

using detail::Status;

namespace {

void createConsumer(const std::shared_ptr<detail::client::ClientImpl>& client,
                    ConsumerOptions options, std::optional<RetryTopics> retryTopics,
                    detail::Callback<std::shared_ptr<detail::client::ConsumerImpl>> done) {
  detail::client::ConsumerSpec spec;
  for (const auto& topic : options.topics) {
    spec.topics.push_back({topic, options.subscriptionType, options.initialPosition});
  }
  if (retryTopics) {
    // Pulsar delays delivery on Shared subscriptions only; earliest, so that no retry published
    // before this subscription existed is missed.
    spec.topics.push_back(
        {retryTopics->retryTopic, SubscriptionType::shared, InitialPosition::earliest});
  }
  auto givenTopics = options.topics;
  auto policy = options.retry;
  spec.options = std::move(options);
  detail::client::ConsumerImpl::create(
      client, std::move(spec),
      [client, retryTopics, givenTopics, policy, done](
          const Status& status, std::shared_ptr<detail::client::ConsumerImpl> consumer) {
        if (!status.ok()) return done(status, nullptr);
        consumer->givenTopics_ = givenTopics;
        if (retryTopics) {
          auto reconsumer = std::make_shared<Reconsumer>(client, *policy, *retryTopics);
          consumer->onClose = [reconsumer](detail::Callback<> closed) {
            reconsumer->close(std::move(closed));
          };
          consumer->extension = std::move(reconsumer);
        }
        done({}, consumer);
      });
}

}  // namespace

void subscribe(const std::shared_ptr<detail::client::ClientImpl>& client, ConsumerOptions options,
               detail::Callback<std::shared_ptr<detail::client::ConsumerImpl>> done) {
  try {
    config::validateConsumerOptions(options);
    for (auto& topic : options.topics) topic = detail::canonicalTopic(topic);
    if (options.retryTopic) options.retryTopic = detail::canonicalTopic(*options.retryTopic);
    if (options.deadLetterTopic) {
      options.deadLetterTopic = detail::canonicalTopic(*options.deadLetterTopic);
    }
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()), nullptr);
  }
  if (!options.retry) return createConsumer(client, std::move(options), std::nullopt, done);

  // Names not given: the legacy <namespace>/<subscription>-RETRY / -DLQ when they exist as
  // partitioned topics (the Java client's rule), else <topic>-<subscription>-RETRY / -DLQ.
  const auto& first = options.topics.front();
  const auto& subscription = options.subscription;
  std::vector<std::string> legacy = {legacyRetryTopic(first, subscription),
                                     legacyDeadLetterTopic(first, subscription)};
  std::vector<std::string> fallback = {defaultRetryTopic(first, subscription),
                                       defaultDeadLetterTopic(first, subscription)};
  auto lookups =
      detail::Gather<int>::start(2, [client, options, legacy, fallback, done](
                                        const Status& status, std::vector<int> partitions) mutable {
        if (!status.ok()) return done(status, nullptr);
        RetryTopics topics;
        topics.retryTopic =
            options.retryTopic.value_or(partitions[0] > 0 ? legacy[0] : fallback[0]);
        topics.deadLetterTopic =
            options.deadLetterTopic.value_or(partitions[1] > 0 ? legacy[1] : fallback[1]);
        topics.deadLetterSubscription = options.deadLetterSubscription;
        createConsumer(client, std::move(options), std::move(topics), done);
      });
  for (std::size_t i = 0; i < 2; ++i) client->backend().partitions(legacy[i], lookups->slot(i));
}

}  // namespace reconsume::detail::retry
