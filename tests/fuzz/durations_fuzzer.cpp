// libFuzzer target: durations ("30s", parseDuration / tryParseDuration) and delay-level tables
// ("1s 5s 30s", DelayLevels::parse), as they come from JSON options and the command line.
//
// Input: the text. Besides "no crash", it aborts when
//   - parseDuration or DelayLevels::parse throws anything but Error(errc::invalid_argument);
//   - parseDuration and tryParseDuration disagree, or tryParseDuration rejects without a reason;
//   - a parsed duration is negative, or formatDuration's text does not parse to the same value;
//   - a parsed table is empty or has a delay <= 0, or its toString() does not parse to an equal
//     table (and print the same again);
//   - a table's delays differ from parsing each whitespace-separated token as a duration.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/duration.hpp"
#include "fuzz_check.hpp"
#include "reconsume/retry_policy.hpp"

using namespace reconsume;
using reconsume::fuzz::accepts;
using reconsume::fuzz::check;

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void duration(std::string_view text) {
  std::chrono::milliseconds parsed{};
  const bool ok = accepts([&] { parsed = detail::parseDuration(text); });
  std::string problem;
  const auto tried = detail::tryParseDuration(text, &problem);
  check(ok == tried.has_value(), "parseDuration and tryParseDuration disagree");
  if (!ok) {
    check(!problem.empty(), "tryParseDuration rejects without a reason");
    return;
  }
  check(*tried == parsed, "parseDuration and tryParseDuration give different values");
  check(parsed.count() >= 0, "a parsed duration is negative");
  const std::string formatted = detail::formatDuration(parsed);
  const auto again = detail::tryParseDuration(formatted);
  check(again && *again == parsed, "a formatted duration does not parse to the same value");
  // The largest exact unit never needs more characters than the unit the input used.
  check(formatted.size() <= text.size(), "formatDuration is longer than the input");
}

void table(std::string_view text) {
  DelayLevels levels = DelayLevels::defaultTable();
  if (!accepts([&] { levels = DelayLevels::parse(text); })) return;
  check(levels.size() > 0, "a parsed table is empty");

  // The same tokens one by one.
  std::vector<std::chrono::milliseconds> tokens;
  for (std::size_t at = 0; at < text.size();) {
    if (isSpace(text[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && !isSpace(text[end])) ++end;
    const auto delay = detail::tryParseDuration(text.substr(at, end - at));
    check(delay.has_value(), "a table parses although one of its tokens is no duration");
    tokens.push_back(*delay);
    at = end;
  }
  check(tokens == levels.delays(), "a table's delays differ from its tokens");
  for (const auto delay : levels.delays()) check(delay.count() > 0, "a table has a delay <= 0");

  const std::string printed = levels.toString();
  DelayLevels again = DelayLevels::defaultTable();
  check(accepts([&] { again = DelayLevels::parse(printed); }), "a printed table does not parse");
  check(again == levels, "a printed table parses to another table");
  check(again.toString() == printed, "a re-parsed table prints differently");
  check(levels.at(static_cast<int>(levels.size())) == levels.delays().back(), "at() is off");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  duration(text);
  table(text);
  return 0;
}
