// RetryPolicy: construction, validation (SPEC.md §1 and §5) and description.
#include <charconv>
#include <cmath>

#include "common/duration.hpp"
#include "reconsume/error.hpp"
#include "retry/default_random_source.hpp"
#include "retry/retry_policy_state.hpp"

namespace reconsume {
namespace {

void checkMaxRetries(int maxRetries) {
  if (maxRetries < 1) {
    throw Error(errc::invalid_argument,
                "maxRetries " + std::to_string(maxRetries) + " must be at least 1");
  }
}

std::string formatNumber(double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

std::string_view jitterName(Jitter jitter) {
  switch (jitter) {
    case Jitter::none:
      return "none";
    case Jitter::full:
      return "full";
    case Jitter::equal:
      return "equal";
    case Jitter::decorrelated:
      return "decorrelated";
  }
  return "unknown";
}

}  // namespace

RetryPolicy::RetryPolicy(std::shared_ptr<const State> state) : state_(std::move(state)) {}

RetryPolicy RetryPolicy::levels(DelayLevels table, std::optional<int> maxRetries) {
  if (table.size() == 0) {
    throw Error(errc::invalid_argument, "a level-table retry policy needs at least one level");
  }
  int max = maxRetries.value_or(static_cast<int>(table.size()));
  checkMaxRetries(max);
  return RetryPolicy(
      std::make_shared<const State>(State{.kind = std::move(table),
                                          .maxRetries = max,
                                          .random = detail::retry::defaultRandomSource(),
                                          .timeLimit = std::nullopt}));
}

RetryPolicy RetryPolicy::exponential(ExponentialBackoff backoff, int maxRetries) {
  using detail::formatDuration;
  if (backoff.min.count() <= 0) {
    throw Error(errc::invalid_argument, "exponential backoff min " + formatDuration(backoff.min) +
                                            " must be greater than zero");
  }
  if (auto why = detail::tooLong(backoff.max); !why.empty()) {
    throw Error(errc::invalid_argument, "exponential backoff max " + why);
  }
  if (backoff.max < backoff.min) {
    throw Error(errc::invalid_argument, "exponential backoff max " + formatDuration(backoff.max) +
                                            " is less than min " + formatDuration(backoff.min));
  }
  // Written so that NaN fails too.
  if (!(backoff.multiplier > 1.0) || !std::isfinite(backoff.multiplier)) {
    throw Error(errc::invalid_argument, "exponential backoff multiplier " +
                                            formatNumber(backoff.multiplier) +
                                            " must be a finite number greater than 1");
  }
  switch (backoff.jitter) {
    case Jitter::none:
    case Jitter::full:
    case Jitter::equal:
    case Jitter::decorrelated:
      break;
    default:
      throw Error(errc::invalid_argument, "exponential backoff jitter " +
                                              std::to_string(static_cast<int>(backoff.jitter)) +
                                              " is not a Jitter value");
  }
  checkMaxRetries(maxRetries);
  return RetryPolicy(
      std::make_shared<const State>(State{.kind = backoff,
                                          .maxRetries = maxRetries,
                                          .random = detail::retry::defaultRandomSource(),
                                          .timeLimit = std::nullopt}));
}

RetryPolicy RetryPolicy::custom(DelayFunction delay, int maxRetries) {
  if (!delay) {
    throw Error(errc::invalid_argument, "a custom retry policy needs a delay function (got none)");
  }
  checkMaxRetries(maxRetries);
  return RetryPolicy(
      std::make_shared<const State>(State{.kind = State::Custom{std::move(delay)},
                                          .maxRetries = maxRetries,
                                          .random = detail::retry::defaultRandomSource(),
                                          .timeLimit = std::nullopt}));
}

RetryPolicy RetryPolicy::withRandomSource(RandomSource source) const {
  if (!source) {
    throw Error(errc::invalid_argument, "withRandomSource needs a random source (got none)");
  }
  auto copy = std::make_shared<State>(*state_);
  copy->random = std::move(source);
  return RetryPolicy(std::move(copy));
}

RetryPolicy RetryPolicy::withTimeLimit(std::chrono::milliseconds limit) const {
  if (limit.count() <= 0) {
    throw Error(errc::invalid_argument,
                "the retry time limit " + detail::formatDuration(limit) + " must be positive");
  }
  if (auto why = detail::tooLong(limit); !why.empty()) {
    throw Error(errc::invalid_argument, "the retry time limit " + why);
  }
  auto copy = std::make_shared<State>(*state_);
  copy->timeLimit = limit;
  return RetryPolicy(std::move(copy));
}

std::optional<std::chrono::milliseconds> RetryPolicy::timeLimit() const {
  return state_->timeLimit;
}

int RetryPolicy::maxRetries() const {
  return state_->maxRetries;
}

const DelayLevels* RetryPolicy::levelTable() const {
  return std::get_if<DelayLevels>(&state_->kind);
}

const ExponentialBackoff* RetryPolicy::exponentialBackoff() const {
  return std::get_if<ExponentialBackoff>(&state_->kind);
}

std::string RetryPolicy::describe() const {
  using detail::formatDuration;
  std::string text;
  if (const auto* table = levelTable()) {
    text = "levels " + table->toString();
  } else if (const auto* backoff = exponentialBackoff()) {
    text = "exponential " + formatDuration(backoff->min) + ".." + formatDuration(backoff->max) +
           " x" + formatNumber(backoff->multiplier) +
           " jitter=" + std::string(jitterName(backoff->jitter));
  } else {
    text = "custom";
  }
  int max = state_->maxRetries;
  text += " (max " + std::to_string(max) + (max == 1 ? " retry" : " retries");
  if (state_->timeLimit) text += ", within " + formatDuration(*state_->timeLimit);
  return text + ")";
}

}  // namespace reconsume
