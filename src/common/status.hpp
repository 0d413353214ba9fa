// The outcome of an internal operation: an error code and the text that names what caused it.
// Public calls turn a failed Status into an Error (blocking) or an error_code (async).
#pragma once

#include <string>
#include <system_error>
#include <utility>

#include "reconsume/error.hpp"

namespace reconsume::detail {

struct Status {
  std::error_code code;
  std::string message;
  // Set by the network layer when it already waited as long as it may: a broker it could not
  // reach within the connection timeout. Whoever retries within a deadline (RetryBudget) stops
  // here, so the caller hears about an unreachable broker after the connection timeout, not after
  // the operation timeout.
  bool retriesExhausted{false};

  Status() = default;
  Status(std::error_code c, std::string m) : code(c), message(std::move(m)) {}
  Status(errc c, std::string m) : code(make_error_code(c)), message(std::move(m)) {}

  bool ok() const { return !code; }
  explicit operator bool() const { return ok(); }
  [[noreturn]] void raise() const { throw Error(code, message); }
  void raiseIfFailed() const {
    if (!ok()) raise();
  }
  static Status fromException(std::exception_ptr e);
};

}  // namespace reconsume::detail
