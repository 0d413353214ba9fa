#include "common/log.hpp"

#include <cstdio>

namespace reconsume::detail {

Log::Log(Logger logger, LogLevel level) : logger_(std::move(logger)), level_(level) {
  if (!logger_ && level_ < LogLevel::warn) level_ = LogLevel::warn;
}

void Log::write(LogLevel level, std::string_view message) const {
  if (!enabled(level)) return;
  if (logger_) {
    logger_(level, message);
    return;
  }
  static constexpr const char* kNames[] = {"debug", "info", "warn", "error"};
  std::fprintf(stderr, "reconsume %s: %.*s\n", kNames[static_cast<int>(level)],
               static_cast<int>(message.size()), message.data());
}

}  // namespace reconsume::detail
