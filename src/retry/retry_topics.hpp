// The default names of the retry and dead-letter topics (SPEC.md §3).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace reconsume::detail::retry
