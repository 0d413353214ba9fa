#include "retry/routing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/duration.hpp"
#include "reconsume/error.hpp"
#include "retry/property_keys.hpp"
#include "retry/retry_policy_state.hpp"

namespace reconsume::detail::retry {
namespace {

using std::chrono::milliseconds;

void validate(const RetryPolicy& policy, const RetryRequest& request) {
  switch (request.kind) {
    case RetryRequest::Kind::level: {
      const DelayLevels* table = policy.levelTable();
      if (!table) {
        throw Error(errc::invalid_argument,
                    "reconsumeLater with level " + std::to_string(request.level) +
                        " needs a level-table retry policy, but the policy is " +
                        policy.describe());
      }
      table->at(request.level);  // throws naming the level and the range
      break;
    }
    case RetryRequest::Kind::delay:
      if (request.delay.count() < 0) {
        throw Error(errc::invalid_argument,
                    "delay " + formatDuration(request.delay) +
                        " is negative; give zero (immediately) or a positive delay");
      }
      if (auto why = tooLong(request.delay); !why.empty()) {
        throw Error(errc::invalid_argument, "delay " + why);
      }
      break;
    case RetryRequest::Kind::next:
    case RetryRequest::Kind::deadLetter:
      break;
  }
}

// The policy's random source, kept inside [0, 1) whatever a user-supplied source returns.
double uniform(const RetryPolicy::State& state) {
  double u = state.random();
  if (!(u >= 0.0)) return 0.0;  // also NaN
  if (u >= 1.0) return std::nextafter(1.0, 0.0);
  return u;
}

milliseconds roundToMillis(double ms, milliseconds max) {
  if (!(ms > 0.0)) return milliseconds(0);
  if (ms >= static_cast<double>(max.count())) return max;
  return milliseconds(std::llround(ms));
}

milliseconds exponentialDelay(const RetryPolicy::State& state, const ExponentialBackoff& backoff,
                              int count, const Properties& incoming) {
  const double min = static_cast<double>(backoff.min.count());
  const double max = static_cast<double>(backoff.max.count());
  // In double: a large count gives +inf or a huge value, which the cap turns into max.
  double capped = std::min(max, min * std::pow(backoff.multiplier, count - 1));
  double v = static_cast<double>(roundToMillis(capped, backoff.max).count());
  switch (backoff.jitter) {
    case Jitter::none:
      return roundToMillis(v, backoff.max);
    case Jitter::full:
      return roundToMillis(uniform(state) * v, backoff.max);
    case Jitter::equal:
      return roundToMillis(v / 2 + uniform(state) * (v / 2), backoff.max);
    case Jitter::decorrelated: {
      double previous = min;
      if (const auto text = incoming.find(keys::delayTime)) {
        if (auto parsed = parsePropertyCount(*text)) previous = static_cast<double>(*parsed);
      }
      double high = std::max(min, 3 * previous);
      return roundToMillis(std::min(max, min + uniform(state) * (high - min)), backoff.max);
    }
  }
  return roundToMillis(v, backoff.max);
}

int clampToInt(std::int64_t value, int high) {
  return static_cast<int>(std::clamp<std::int64_t>(value, 0, high));
}

}  // namespace

std::optional<std::int64_t> parsePropertyCount(std::string_view text) {
  if (text.empty()) return std::nullopt;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    int digit = c - '0';
    value = value > (kMax - digit) / 10 ? kMax : value * 10 + digit;
  }
  return value;
}

RetryRequest RetryRequest::from(const ReconsumeOptions& options) {
  RetryRequest request;
  if (options.level && options.delay) {
    throw Error(errc::invalid_argument,
                "ReconsumeOptions sets both level " + std::to_string(*options.level) +
                    " and delay " + formatDuration(*options.delay) + "; set at most one of them");
  }
  if (options.level) {
    request.kind = Kind::level;
    request.level = *options.level;
  } else if (options.delay) {
    request.kind = Kind::delay;
    request.delay = *options.delay;
  }
  request.category = options.category;
  return request;
}

Route applyTimeLimit(const RetryPolicy& policy, const Properties& incoming, Route route,
                     std::chrono::system_clock::time_point now) {
  auto limit = policy.timeLimit();
  if (!limit || route.destination != Destination::retryTopic) return route;
  // In milliseconds since the epoch, saturating: a FIRST_FAILURE_TIME far in the future must not
  // overflow a time point.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::int64_t nowMs =
      std::chrono::duration_cast<milliseconds>(now.time_since_epoch()).count();
  std::int64_t firstMs = nowMs;
  if (const auto text = incoming.find(keys::firstFailureTime)) {
    if (auto ms = parsePropertyCount(*text)) firstMs = *ms;
  }
  const std::int64_t deadline = firstMs > kMax - limit->count() ? kMax : firstMs + limit->count();
  const std::int64_t due = nowMs > kMax - route.delay.count() ? kMax : nowMs + route.delay.count();
  if (due <= deadline) return route;
  route.destination = Destination::deadLetterTopic;
  route.cause = DeadLetterCause::expired;
  route.delay = milliseconds(0);
  route.level.reset();
  return route;
}

std::string_view toString(DeadLetterCause cause) {
  switch (cause) {
    case DeadLetterCause::exhausted:
      return "exhausted";
    case DeadLetterCause::explicitCall:
      return "explicit";
    case DeadLetterCause::redelivered:
      return "redelivered";
    case DeadLetterCause::expired:
      return "expired";
  }
  return "unknown";
}

namespace {

// The incoming RECONSUMETIMES into `route` (flagging a malformed one); returns it.
std::int64_t incomingCount(const Properties& incoming, Route& route) {
  if (const auto text = incoming.find(keys::reconsumeTimes)) {
    if (auto parsed = parsePropertyCount(*text)) return *parsed;
    route.malformedCount = true;
  }
  return 0;
}

}  // namespace

Route explicitDeadLetter(const Properties& incoming, std::optional<std::string> category) {
  Route route;
  route.category = std::move(category);
  // Not a retry: the count stays what it was.
  route.count = clampToInt(incomingCount(incoming, route), std::numeric_limits<int>::max());
  route.destination = Destination::deadLetterTopic;
  route.cause = DeadLetterCause::explicitCall;
  return route;
}

Route decide(const RetryPolicy& policy, const Properties& incoming, const RetryRequest& request) {
  validate(policy, request);
  const RetryPolicy::State& state = policy.state();
  if (request.kind == RetryRequest::Kind::deadLetter) {
    return explicitDeadLetter(incoming, request.category);
  }
  Route route;
  route.category = request.category;
  std::int64_t previousCount = incomingCount(incoming, route);
  constexpr int kIntMax = std::numeric_limits<int>::max();

  route.count = clampToInt(previousCount, kIntMax - 1) + 1;
  if (route.count > state.maxRetries) {
    route.destination = Destination::deadLetterTopic;
    route.cause = DeadLetterCause::exhausted;
    return route;
  }

  route.destination = Destination::retryTopic;
  switch (request.kind) {
    case RetryRequest::Kind::level:
      route.level = request.level;
      route.delay = policy.levelTable()->at(request.level);
      return route;
    case RetryRequest::Kind::delay:
      route.delay = request.delay;
      return route;
    case RetryRequest::Kind::next:
    case RetryRequest::Kind::deadLetter:
      break;
  }

  if (const auto* table = std::get_if<DelayLevels>(&state.kind)) {
    const int size = static_cast<int>(table->size());
    std::int64_t level = route.count;
    // The incoming level continues the count of its own category's table only.
    const auto incomingCategory = incoming.find(keys::reconsumeCategory);
    bool sameCategory = request.category
                            ? incomingCategory && *incomingCategory == *request.category
                            : !incomingCategory;
    if (const auto text = sameCategory ? incoming.find(keys::reconsumeLevel) : std::nullopt) {
      if (auto parsed = parsePropertyCount(*text)) {
        level = *parsed == std::numeric_limits<std::int64_t>::max() ? *parsed : *parsed + 1;
      }
    }
    route.level = static_cast<int>(std::clamp<std::int64_t>(level, 1, size));
    route.delay = table->at(*route.level);
  } else if (const auto* backoff = std::get_if<ExponentialBackoff>(&state.kind)) {
    route.delay = exponentialDelay(state, *backoff, route.count, incoming);
  } else {
    const auto& custom = std::get<RetryPolicy::State::Custom>(state.kind);
    route.delay = custom.delay(route.count);
    if (route.delay.count() < 0) {
      throw Error(errc::invalid_argument, "the custom retry policy's delay for retry " +
                                              std::to_string(route.count) + " is " +
                                              formatDuration(route.delay) + ", which is negative");
    }
    if (auto why = tooLong(route.delay); !why.empty()) {
      throw Error(errc::invalid_argument, "the custom retry policy's delay for retry " +
                                              std::to_string(route.count) + ": " + why);
    }
  }
  return route;
}

}  // namespace reconsume::detail::retry
