#include "timeouts.hpp"

#include <algorithm>
#include <charconv>

#include "common/duration.hpp"
#include "reconsume/error.hpp"

namespace reconsume::tools {

std::chrono::milliseconds parseTimeout(const std::string& text, const std::string& option) {
  auto bad = [&](const std::string& why) {
    return Error(errc::invalid_argument, option + " '" + text + "' is invalid: " + why);
  };
  long long seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  std::chrono::milliseconds timeout{0};
  if (!text.empty() && ec == std::errc() && end == text.data() + text.size()) {
    // A bare number is seconds, as the option took before it took durations.
    if (seconds <= 0 || seconds > 100'000'000) throw bad("it must be more than 0");
    timeout = std::chrono::seconds(seconds);
  } else {
    std::string problem;
    auto parsed = detail::tryParseDuration(text, &problem);
    if (!parsed) throw bad(problem + " (a duration such as 2s, 500ms, 5m, or seconds)");
    timeout = *parsed;
  }
  if (timeout.count() <= 0) throw bad("it must be more than 0");
  return timeout;
}

void boundClientBy(ClientOptions& options, std::chrono::milliseconds timeout) {
  // Operations keep their own timeout: a broker that is up but slow (the first lookups after it
  // started) is no reason to give up sooner.
  options.connectionTimeout = std::min(options.connectionTimeout, timeout);
}

}  // namespace reconsume::tools
