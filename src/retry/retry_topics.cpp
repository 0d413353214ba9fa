#include "retry/retry_topics.hpp"

#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::retry {
namespace {

constexpr std::string_view kRetrySuffix = "-RETRY";
constexpr std::string_view kDeadLetterSuffix = "-DLQ";

TopicName baseTopic(std::string_view topic, std::string_view subscription) {
  if (subscription.empty()) {
    throw Error(errc::invalid_argument, "the subscription of topic '" + std::string(topic) +
                                            "' is empty; retry and dead-letter topic names need "
                                            "one");
  }
  return TopicName::parse(topic).base();
}

// A subscription name with a '/' would make the result a different (or invalid) topic.
std::string checked(std::string name, std::string_view subscription) {
  if (subscription.find('/') != std::string_view::npos) {
    throw Error(errc::invalid_argument, "subscription '" + std::string(subscription) +
                                            "' contains '/', which cannot be part of the topic "
                                            "name '" +
                                            name + "'");
  }
  return name;
}

std::string perTopic(std::string_view topic, std::string_view subscription,
                     std::string_view suffix) {
  return checked(baseTopic(topic, subscription).toString() + '-' + std::string(subscription) +
                     std::string(suffix),
                 subscription);
}

std::string perNamespace(std::string_view topic, std::string_view subscription,
                         std::string_view suffix) {
  auto base = baseTopic(topic, subscription);
  return checked(base.domain() + "://" + base.namespaceName() + '/' + std::string(subscription) +
                     std::string(suffix),
                 subscription);
}

}  // namespace

std::string defaultRetryTopic(std::string_view topic, std::string_view subscription) {
  return perTopic(topic, subscription, kRetrySuffix);
}

std::string defaultDeadLetterTopic(std::string_view topic, std::string_view subscription) {
  return perTopic(topic, subscription, kDeadLetterSuffix);
}

std::string legacyRetryTopic(std::string_view topic, std::string_view subscription) {
  return perNamespace(topic, subscription, kRetrySuffix);
}

std::string legacyDeadLetterTopic(std::string_view topic, std::string_view subscription) {
  return perNamespace(topic, subscription, kDeadLetterSuffix);
}

std::array<std::string, 2> legacyTopicsOf(const ConsumerOptions& options) {
  const auto& first = options.topics.front();
  return {legacyRetryTopic(first, options.subscription),
          legacyDeadLetterTopic(first, options.subscription)};
}

RetryTopics resolveRetryTopics(const ConsumerOptions& options, int legacyRetryPartitions,
                               int legacyDeadLetterPartitions) {
  const auto& first = options.topics.front();
  const auto& subscription = options.subscription;
  RetryTopics topics;
  topics.retryTopic = options.retryTopic.value_or(legacyRetryPartitions > 0
                                                      ? legacyRetryTopic(first, subscription)
                                                      : defaultRetryTopic(first, subscription));
  topics.deadLetterTopic = options.deadLetterTopic.value_or(
      legacyDeadLetterPartitions > 0 ? legacyDeadLetterTopic(first, subscription)
                                     : defaultDeadLetterTopic(first, subscription));
  topics.deadLetterSubscription = options.deadLetterSubscription;
  return topics;
}

}  // namespace reconsume::detail::retry
