// Validation of ConsumerOptions before a subscribe (and after loading them from JSON).
//
// Thread safety: pure function.
#pragma once

#include "reconsume/consumer_options.hpp"

namespace reconsume::detail::config {

// Throws Error(errc::invalid_argument) naming the option and its value ("ConsumerOptions.topics[1]
// 'a/b' is invalid: ...") for: no topics, an invalid topic name, an empty subscription,
// receiverQueueSize or maxTotalReceiverQueueSizeAcrossPartitions < 1, a negative ackTimeout or
// negativeAckRedeliveryDelay, a non-default negativeAckRedeliveryDelay together with a
// negativeAckRedeliveryBackoff (as in the Java client, they cannot be used together), an invalid
// retryTopic or deadLetterTopic, a negative maxRedeliverCount, transactionalRetry without a retry
// policy. Changes nothing.
void validateConsumerOptions(const ConsumerOptions& options);

// The options a subscribe works with: validated as above, every topic name in its canonical full
// form (topics, retryTopic, deadLetterTopic). Throws as validateConsumerOptions does.
ConsumerOptions normalizeConsumerOptions(ConsumerOptions options);

}  // namespace reconsume::detail::config
