// Subscribing a consumer: validate the options and, when a retry policy is set, work out the
// retry and dead-letter topics (SPEC.md section 3: explicit names, else the legacy names when
// they exist as partitioned topics, else the defaults) and subscribe the retry topic too —
// always Shared, from the earliest message, under the same subscription name.
#pragma once

#include <memory>

#include "client/consumer_impl.hpp"

namespace reconsume::detail::retry {

void subscribe(const std::shared_ptr<detail::client::ClientImpl>& client, ConsumerOptions options,
               detail::Callback<std::shared_ptr<detail::client::ConsumerImpl>> done);

}  // namespace reconsume::detail::retry
