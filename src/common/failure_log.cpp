#include "common/failure_log.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace reconsume::detail {

void FailureLog::warn(std::string_view operation, std::error_code code, FailureSource source,
                      std::string_view text) {
  if (!log_.enabled(LogLevel::warn)) return;
  bool post = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto same = std::find_if(burst_.begin(), burst_.end(), [&](const Kind& kind) {
      return kind.code == code && kind.operation == operation;
    });
    if (same != burst_.end()) {
      const bool newSource = same->sources.insert(source.handle).second;
      if (!newSource || same->warned >= kWarnedHandles) {
        ++same->more;
        return;
      }
      ++same->warned;  // a handle not heard from yet: its own text
    } else {
      burst_.push_back({std::string(operation), code, source.noun, {source.handle}});
      post = !std::exchange(flushPosted_, true);
    }
  }
  log_.warn(text);
  if (post) {
    // Held weakly: a client that is gone flushed when it closed.
    boost::asio::post(executor_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->flush();
    });
  }
}

void FailureLog::flush() {
  std::vector<Kind> burst;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    burst.swap(burst_);
    flushPosted_ = false;
  }
  for (const auto& kind : burst) {
    if (kind.more == 0) continue;
    std::string line = kind.operation + ": " + std::to_string(kind.more) + " more failed (" +
                       kind.code.message() + ") since the warning";
    if (kind.sources.size() == 1) {
      line += " above";
    } else {
      line += "s above, from " + std::to_string(kind.sources.size()) + " " +
              (kind.noun ? kind.noun : "source") + "s";
    }
    log_.warn(line);
  }
}

}  // namespace reconsume::detail
