// Logging: where the library's own messages go.
//
// Thread safety: a Logger is called from library threads, never while a lock of the library is
// held; it must be thread-safe.
#pragma once

#include <functional>
#include <string_view>

namespace reconsume {

enum class LogLevel { debug, info, warn, error };
using Logger = std::function<void(LogLevel level, std::string_view message)>;

}  // namespace reconsume
