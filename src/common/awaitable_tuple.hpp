#pragma once

// The completion token of every coroutine that talks to a socket: `co_await op(..., asTuple)`
// yields (error_code, result...) instead of throwing, so that a closed connection is an ordinary
// value to look at, not an exception on the hot path.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace reconsume::detail {

inline constexpr auto asTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

}  // namespace reconsume::detail
