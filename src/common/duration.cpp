#include "common/duration.hpp"

#include <array>
#include <cstdint>
#include <limits>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t millis;
};

// Largest first: formatDuration picks the first unit that divides the value.
constexpr std::array<Unit, 5> kUnits{{
    {"d", 86'400'000},
    {"h", 3'600'000},
    {"m", 60'000},
    {"s", 1'000},
    {"ms", 1},
}};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::optional<std::chrono::milliseconds> tryParseDuration(std::string_view token,
                                                          std::string* problem) {
  auto reject = [problem](std::string why) -> std::optional<std::chrono::milliseconds> {
    if (problem) *problem = std::move(why);
    return std::nullopt;
  };
  if (token.empty()) return reject("it is empty");
  if (token.front() == '-' || token.front() == '+') {
    return reject("a sign is not allowed; write a non-negative <integer><unit> such as 30s");
  }
  std::size_t digits = 0;
  while (digits < token.size() && isDigit(token[digits])) ++digits;
  if (digits == 0) return reject("it does not start with a number (expected <integer><unit>)");
  std::string_view suffix = token.substr(digits);
  if (suffix.empty()) return reject("the unit is missing (one of ms s m h d)");

  const Unit* unit = nullptr;
  for (const auto& candidate : kUnits) {
    if (candidate.suffix == suffix) unit = &candidate;
  }
  if (!unit) {
    return reject("unknown unit '" + std::string(suffix) + "' (expected one of ms s m h d)");
  }

  // Accumulate in milliseconds and stop before the int64 range is left.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    int digit = token[i] - '0';
    if (value > (kMax - digit) / 10) return reject("the value is too large");
    value = value * 10 + digit;
  }
  if (value > kMax / unit->millis) return reject("the value is too large");
  std::chrono::milliseconds duration(value * unit->millis);
  if (duration > kLongestDuration) return reject("it is longer than 36525d (100 years)");
  return duration;
}

std::string tooLong(std::chrono::milliseconds duration) {
  if (duration <= kLongestDuration) return {};
  return formatDuration(duration) + " is longer than the longest accepted, " +
         formatDuration(kLongestDuration) + " (100 years)";
}

std::chrono::milliseconds parseDuration(std::string_view token) {
  std::string problem;
  if (auto value = tryParseDuration(token, &problem)) return *value;
  throw Error(errc::invalid_argument,
              "duration '" + std::string(token) + "' is invalid: " + problem);
}

std::string formatDuration(std::chrono::milliseconds duration) {
  std::int64_t ms = duration.count();
  if (ms == 0) return "0s";
  for (const auto& unit : kUnits) {
    if (ms % unit.millis == 0) return std::to_string(ms / unit.millis) + std::string(unit.suffix);
  }
  return std::to_string(ms) + "ms";  // not reached: every value is a whole number of ms
}

}  // namespace reconsume::detail
