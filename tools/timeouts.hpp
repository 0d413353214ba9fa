// --timeout of the commands that connect (demo, perf, dlq): how it is typed and what it bounds in
// the client, so that a broker that cannot be reached fails the command within it.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <string>

#include "reconsume/client_options.hpp"

namespace reconsume::tools {

// A duration ("2s", "500ms", "5m") or a whole number of seconds ("300"), more than 0. Throws
// Error(errc::invalid_argument) naming `option` and the value.
std::chrono::milliseconds parseTimeout(const std::string& text, const std::string& option);

// Connecting waits at most `timeout`, never longer than the library's own default:
// ClientOptions::connectionTimeout becomes the smaller of the two. (A broker that cannot be
// reached then fails every operation within it; operations on a reachable broker keep
// operationTimeout.)
void boundClientBy(ClientOptions& options, std::chrono::milliseconds timeout);

}  // namespace reconsume::tools
