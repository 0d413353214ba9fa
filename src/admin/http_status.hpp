// What an HTTP answer of Pulsar's admin API means for the caller: the errc of each status code,
// with the broker's own reason text and the request that got it.
#pragma once

#include <string>
#include <string_view>

#include "common/status.hpp"

namespace reconsume::detail::admin {

// ok for 2xx. Otherwise: 400 → invalid_argument, 401/403 → authentication, 404 → not_found,
// 429/503 → unavailable, anything else (409 conflict, 412 precondition, 5xx, an unfollowed
// redirect) → broker_error. The message reads "<method> <path>: <status> <phrase>: <reason>".
Status statusOf(std::string_view method, std::string_view path, unsigned status,
                std::string_view reasonPhrase, std::string_view body);

// The broker's explanation in an error body: the "reason" of a JSON object, shortened to its
// first line of substance (Pulsar puts whole stack traces into 500 answers); "" for other bodies
// (Jetty's HTML error pages say no more than the status line).
std::string brokerReason(std::string_view body);

}  // namespace reconsume::detail::admin
