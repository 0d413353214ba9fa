// The default names of the retry and dead-letter topics (SPEC.md §3).
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "reconsume/consumer_options.hpp"

namespace reconsume::detail::retry {

// "<topic>-<subscription>-RETRY" / "-DLQ", <topic> being the canonical full name of `topic`
// without any -partition-N suffix: ("orders-partition-2", "billing") →
// "persistent://public/default/orders-billing-RETRY".
std::string defaultRetryTopic(std::string_view topic, std::string_view subscription);
std::string defaultDeadLetterTopic(std::string_view topic, std::string_view subscription);

// The names older Java clients used: "<domain>://<tenant>/<namespace>/<subscription>-RETRY" /
// "-DLQ". The Java client still uses them when they exist as partitioned topics; so must we (the
// consumer checks).
std::string legacyRetryTopic(std::string_view topic, std::string_view subscription);
std::string legacyDeadLetterTopic(std::string_view topic, std::string_view subscription);

// Each throws Error(errc::invalid_argument) naming the value for an invalid topic name or an empty
// subscription.

// The topics reconsumeLater and deadLetter publish to.
struct RetryTopics {
  std::string retryTopic;
  std::string deadLetterTopic;
  std::string deadLetterSubscription;  // created with the dead-letter topic
};

// Which topics decide the names: the legacy retry and dead-letter names of the consumer's first
// topic (to be asked for their partition counts).
std::array<std::string, 2> legacyTopicsOf(const ConsumerOptions& options);

// SPEC.md §3, for options already checked and canonical: an explicit name wins; else the legacy
// name when it exists as a partitioned topic (its partition count > 0); else the default name.
RetryTopics resolveRetryTopics(const ConsumerOptions& options, int legacyRetryPartitions,
                               int legacyDeadLetterPartitions);

}  // namespace reconsume::detail::retry
