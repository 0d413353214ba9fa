// Errors of reconsume: one error category, one exception type.
//
// Every blocking call throws `reconsume::Error`; its `code()` compares equal to an `errc` value and
// its `what()` names the value that caused it ("level 19 is outside the table's 1..18", "unknown
// URL scheme 'http' in 'http://x'"). Async calls hand the `std::error_code` to their handler; the
// full text of an async failure is passed to the client's logger. Async handlers take a
// boost::system::error_code (what Asio's use_future and use_awaitable turn into exceptions); it
// wraps the std::error_code of this file and compares equal to the same `errc` values, and is
// empty (default-constructed, false) on success.
//
// Thread safety: everything here is a value type or a free function; all of it is thread-safe.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace reconsume {

enum class errc {
  invalid_argument = 1,  // a value the caller passed is wrong; nothing was changed
  timeout,               // an operation did not complete in time (retryable)
  connection_lost,       // the connection to the broker broke during the call (retryable)
  broker_error,          // the broker refused the operation (e.g. a terminated topic)
  authentication,        // TLS or token authentication failed
  not_found,             // the topic, subscription or message does not exist
  closed,                // the client, producer or consumer was closed
  too_large,             // a message exceeds the broker's maximum message size
  protocol_error,        // the peer sent something that violates the protocol
  producer_busy,         // a producer's pending queue is full
  unsupported,           // the operation is not available on this backend or subscription
  unavailable,           // the broker is temporarily unable to serve (not ready, too many requests)
  transaction_conflict,  // another transaction holds the message this one acknowledges
  transaction_not_found,  // the transaction is over at its coordinator (timed out, aborted, ended)
  // reconsumeLater/deadLetter: the new message is stored, but the acknowledgement of the original
  // was not confirmed (sent again, still unconfirmed); do not call again for that message
  acknowledgement_unconfirmed,
  // a blocking call made on one of the client's I/O threads (from an async handler): it would
  // wait for the thread it blocks; nothing was started. Use the async form, or another thread.
  would_deadlock,
};

const std::error_category& category() noexcept;
std::error_code make_error_code(errc e) noexcept;

// An error with a message naming the value that caused it.
class Error : public std::system_error {
 public:
  Error(errc code, const std::string& message);
  Error(std::error_code code, const std::string& message);
};

// True for failures that may succeed when tried again unchanged: timeout, connection_lost,
// producer_busy and unavailable. Not transaction_conflict or transaction_not_found: repeating the
// request in the same transaction fails again; the work has to be redone in a new one.
bool isRetryable(const std::error_code& code) noexcept;

}  // namespace reconsume

template <>
struct std::is_error_code_enum<reconsume::errc> : std::true_type {};
