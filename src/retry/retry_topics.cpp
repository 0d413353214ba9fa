#include "retry/retry_topics.hpp"

#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::retry {
namespace {

constexpr std::string_view kRetrySuffix = "-RETRY";
constexpr std::string_view kDeadLetterSuffix = "-DLQ";

detail::TopicName baseTopic(std::string_view topic, std::string_view subscription) {
  if (subscription.empty()) {
    throw Error(errc::invalid_argument, "the subscription of topic '" + std::string(topic) +
                                            "' is empty; retry and dead-letter topic names need "
                                            "one");
  }
  return detail::TopicName::parse(topic).base();
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

}  // namespace reconsume::detail::retry
