// Durations as people write them in configuration: "<integer><unit>", unit one of ms s m h d
// ("250ms", "30s", "1m", "2h", "7d"). Used by delay-level tables, the JSON consumer options and
// the command-line tool.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace reconsume::detail {

// Parses `token`. Zero is accepted ("0s"): whether zero makes sense is the caller's decision
// (a delay level must be positive, an ack timeout of "0s" means "off"). A sign, whitespace, a
// missing or unknown unit, a value beyond the range of milliseconds and an empty token are
// errors: throws Error(errc::invalid_argument) naming the token.
std::chrono::milliseconds parseDuration(std::string_view token);

// The same grammar without throwing: the value, or nothing with `problem` (when not null) set to
// a short explanation ("unknown unit 'x'") that callers put into their own error text.
std::optional<std::chrono::milliseconds> tryParseDuration(std::string_view token,
                                                          std::string* problem = nullptr);

// The duration in the largest unit that represents it exactly: "90s", "2h", "1500ms", "1d".
// Zero is "0s". A negative duration keeps its sign ("-5s"), which parseDuration rejects.
std::string formatDuration(std::chrono::milliseconds duration);

}  // namespace reconsume::detail
