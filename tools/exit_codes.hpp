// The exit codes of every `reconsume` command, what --help says about them, and which code an
// error of the library gets.
//
// Thread safety: constants and pure functions.
#pragma once

#include "reconsume/error.hpp"

namespace reconsume::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;    // a runtime failure: the network, the broker, a replay
inline constexpr int kExitBadInput = 2;  // a usage error: nothing was changed

// The footer of every command's --help.
inline constexpr const char* kExitCodesFooter =
    "Exit codes: 0 success, 1 runtime failure (network, broker), 2 usage error (a bad option or "
    "value, an unknown command; nothing was changed).";

// kExitBadInput for a value the user gave that is wrong (invalid_argument; not_found when
// `notFoundIsBadInput`, as for a dead-letter topic named on the command line), else kExitFailed.
inline int exitCodeFor(const Error& e, bool notFoundIsBadInput = false) {
  bool badInput =
      e.code() == errc::invalid_argument || (notFoundIsBadInput && e.code() == errc::not_found);
  return badInput ? kExitBadInput : kExitFailed;
}

}  // namespace reconsume::tools
