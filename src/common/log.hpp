// The library's logging: a thin wrapper over the user's Logger (ClientOptions::logger) with a
// level filter. Never called while a lock of the library is held (the Logger is user code).
#pragma once

#include <string>
#include <string_view>

#include "reconsume/logging.hpp"

namespace reconsume::detail {

class Log {
 public:
  Log() = default;
  // A null logger writes warnings and errors to stderr.
  Log(Logger logger, LogLevel level);

  bool enabled(LogLevel level) const { return level >= level_; }
  void write(LogLevel level, std::string_view message) const;
  void debug(std::string_view message) const { write(LogLevel::debug, message); }
  void info(std::string_view message) const { write(LogLevel::info, message); }
  void warn(std::string_view message) const { write(LogLevel::warn, message); }
  void error(std::string_view message) const { write(LogLevel::error, message); }

 private:
  Logger logger_;
  LogLevel level_ = LogLevel::warn;
};

}  // namespace reconsume::detail
