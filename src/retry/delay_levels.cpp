// DelayLevels: parsing, the default table and lookup (SPEC.md §1, "Level table").
#include "common/duration.hpp"
#include "reconsume/error.hpp"
#include "reconsume/retry_policy.hpp"

namespace reconsume {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

[[noreturn]] void failLevel(std::size_t position, std::string_view shown, std::string_view why) {
  throw Error(errc::invalid_argument, "delay level " + std::to_string(position) + " " +
                                          std::string(shown) + " " + std::string(why));
}

}  // namespace

DelayLevels DelayLevels::parse(std::string_view spec) {
  std::vector<std::chrono::milliseconds> delays;
  std::size_t at = 0;
  while (true) {
    while (at < spec.size() && isSpace(spec[at])) ++at;
    if (at == spec.size()) break;
    std::size_t end = at;
    while (end < spec.size() && !isSpace(spec[end])) ++end;
    std::string_view token = spec.substr(at, end - at);
    std::size_t position = delays.size() + 1;
    std::string quoted = "'" + std::string(token) + "'";

    std::string problem;
    auto delay = detail::tryParseDuration(token, &problem);
    if (!delay) failLevel(position, quoted, "is invalid: " + problem);
    if (delay->count() == 0) failLevel(position, quoted, "must be greater than zero");
    delays.push_back(*delay);
    at = end;
  }
  if (delays.empty()) {
    throw Error(errc::invalid_argument, "delay level table '" + std::string(spec) +
                                            "' is empty; give at least one duration, e.g. \"1s "
                                            "5s 30s\"");
  }
  DelayLevels table;
  table.delays_ = std::move(delays);
  return table;
}

DelayLevels DelayLevels::defaultTable() {
  static const DelayLevels table =
      parse("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");
  return table;
}

DelayLevels DelayLevels::of(std::vector<std::chrono::milliseconds> delays) {
  if (delays.empty()) {
    throw Error(errc::invalid_argument, "delay level table is empty; give at least one delay");
  }
  for (std::size_t i = 0; i < delays.size(); ++i) {
    if (delays[i].count() <= 0) {
      failLevel(i + 1, "(" + std::to_string(delays[i].count()) + "ms)",
                "must be greater than zero");
    }
    if (auto why = detail::tooLong(delays[i]); !why.empty()) {
      throw Error(errc::invalid_argument, "delay level " + std::to_string(i + 1) + ": " + why);
    }
  }
  DelayLevels table;
  table.delays_ = std::move(delays);
  return table;
}

std::chrono::milliseconds DelayLevels::at(int level) const {
  if (level < 1 || static_cast<std::size_t>(level) > delays_.size()) {
    throw Error(errc::invalid_argument, "level " + std::to_string(level) +
                                            " is outside the table's 1.." +
                                            std::to_string(delays_.size()));
  }
  return delays_[static_cast<std::size_t>(level) - 1];
}

std::string DelayLevels::toString() const {
  std::string text;
  for (const auto& delay : delays_) {
    if (!text.empty()) text += ' ';
    text += detail::formatDuration(delay);
  }
  return text;
}

}  // namespace reconsume
