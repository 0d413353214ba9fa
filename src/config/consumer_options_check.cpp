#include "config/consumer_options_check.hpp"

#include "common/duration.hpp"
#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::config {
namespace {

[[noreturn]] void fail(std::string_view option, std::string_view why) {
  throw Error(errc::invalid_argument,
              "ConsumerOptions." + std::string(option) + " " + std::string(why));
}

void checkTopic(const std::string& option, const std::string& name) {
  try {
    TopicName::parse(name);
  } catch (const Error& e) {
    fail(option, "'" + name + "' is invalid: " + e.what());
  }
}

}  // namespace

void validateConsumerOptions(const ConsumerOptions& options) {
  if (options.topics.empty()) fail("topics", "is empty; give at least one topic");
  for (std::size_t i = 0; i < options.topics.size(); ++i) {
    checkTopic("topics[" + std::to_string(i) + "]", options.topics[i]);
  }
  // A topic given twice (or a partitioned topic and one of its partitions) would be subscribed
  // twice on one subscription, and one of the two consumers would be sent the acknowledgements of
  // the other's messages.
  for (std::size_t i = 1; i < options.topics.size(); ++i) {
    const auto topic = TopicName::parse(options.topics[i]);
    for (std::size_t j = 0; j < i; ++j) {
      const auto earlier = TopicName::parse(options.topics[j]);
      std::string how;
      if (topic == earlier) {
        how = "is the same topic as";
      } else if (topic.partition() >= 0 && topic.base() == earlier) {
        how = "is a partition of";
      } else if (earlier.partition() >= 0 && earlier.base() == topic) {
        how = "is the partitioned topic of";
      }
      if (!how.empty()) {
        fail("topics[" + std::to_string(i) + "]", "'" + options.topics[i] + "' " + how +
                                                      " topics[" + std::to_string(j) + "] '" +
                                                      options.topics[j] + "'; give each once");
      }
    }
  }
  if (options.subscription.empty()) fail("subscription", "is empty; give a subscription name");
  if (options.receiverQueueSize < 1) {
    fail("receiverQueueSize", std::to_string(options.receiverQueueSize) + " must be at least 1");
  }
  if (options.maxTotalReceiverQueueSizeAcrossPartitions < 1) {
    fail("maxTotalReceiverQueueSizeAcrossPartitions",
         std::to_string(options.maxTotalReceiverQueueSizeAcrossPartitions) + " must be at least 1");
  }
  if (options.acknowledgmentGroupTime.count() < 0) {
    fail("acknowledgmentGroupTime", formatDuration(options.acknowledgmentGroupTime) +
                                        " must not be negative (0 sends each at once)");
  }
  if (options.ackTimeout.count() < 0) {
    fail("ackTimeout",
         formatDuration(options.ackTimeout) + " must not be negative (0 turns it off)");
  }
  if (options.negativeAckRedeliveryDelay.count() < 0) {
    fail("negativeAckRedeliveryDelay",
         formatDuration(options.negativeAckRedeliveryDelay) + " must not be negative");
  }
  if (options.negativeAckRedeliveryBackoff &&
      options.negativeAckRedeliveryDelay != ConsumerOptions{}.negativeAckRedeliveryDelay) {
    fail("negativeAckRedeliveryDelay",
         formatDuration(options.negativeAckRedeliveryDelay) +
             " and negativeAckRedeliveryBackoff cannot be used together: set one of them");
  }
  for (const auto& [name, value] :
       {std::pair{"acknowledgmentGroupTime", options.acknowledgmentGroupTime},
        std::pair{"ackTimeout", options.ackTimeout},
        std::pair{"negativeAckRedeliveryDelay", options.negativeAckRedeliveryDelay},
        std::pair{"retryBatchingWindow", options.retryBatchingWindow}}) {
    if (auto why = tooLong(value); !why.empty()) fail(name, why);
  }
  if (options.retryTopic) checkTopic("retryTopic", *options.retryTopic);
  if (options.deadLetterTopic) checkTopic("deadLetterTopic", *options.deadLetterTopic);
  if (options.maxRedeliverCount < 0) {
    fail("maxRedeliverCount",
         std::to_string(options.maxRedeliverCount) + " must not be negative (0 turns it off)");
  }
  if (options.retryBatchingWindow.count() < 0) {
    fail("retryBatchingWindow",
         formatDuration(options.retryBatchingWindow) + " must not be negative (0 turns it off)");
  }
  for (const auto& [name, category] : options.categories) {
    std::string option = "categories['" + name + "']";
    if (name.empty()) fail("categories", "has a category with an empty name");
    if (category.deadLetterTopic)
      checkTopic(option + ".deadLetterTopic", *category.deadLetterTopic);
    if (!category.retry && !category.deadLetter && !options.retry) {
      fail(option,
           "has neither a retry policy nor deadLetter, and the consumer has no retry "
           "policy (ConsumerOptions::retry) to fall back to");
    }
  }
  if (options.transactionalRetry && !options.retry && options.categories.empty()) {
    fail("transactionalRetry",
         "is set without a retry policy (ConsumerOptions::retry): it applies "
         "to reconsumeLater and deadLetter");
  }
}

ConsumerOptions normalizeConsumerOptions(ConsumerOptions options) {
  validateConsumerOptions(options);
  for (auto& topic : options.topics) topic = canonicalTopic(topic);
  if (options.retryTopic) options.retryTopic = canonicalTopic(*options.retryTopic);
  if (options.deadLetterTopic) options.deadLetterTopic = canonicalTopic(*options.deadLetterTopic);
  for (auto& [name, category] : options.categories) {
    if (category.deadLetterTopic)
      category.deadLetterTopic = canonicalTopic(*category.deadLetterTopic);
  }
  return options;
}

}  // namespace reconsume::detail::config
