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
// missing or unknown unit, a value longer than kLongestDuration and an empty token are
// errors: throws Error(errc::invalid_argument) naming the token.
std::chrono::milliseconds parseDuration(std::string_view token);

// The same grammar without throwing: the value, or nothing with `problem` (when not null) set to
// a short explanation ("unknown unit 'x'") that callers put into their own error text.
std::optional<std::chrono::milliseconds> tryParseDuration(std::string_view token,
                                                          std::string* problem = nullptr);

// The longest duration the library accepts wherever one is given (a delay, a timeout, a window,
// a time limit; in code, in a file or on the command line): 100 years, 36525d. A longer one
// would overflow the nanosecond clocks it is added to (std::chrono::system_clock ends in 2262),
// so "never" written as milliseconds::max() would come round as "at once".
inline constexpr std::chrono::milliseconds kLongestDuration{std::chrono::hours(24) * 36525};

// "" when `duration` is at most kLongestDuration; else the reason, to follow the name of what
// was given: "36526d is longer than the longest accepted, 36525d (100 years)".
std::string tooLong(std::chrono::milliseconds duration);

// The duration in the largest unit that represents it exactly: "90s", "2h", "1500ms", "1d".
// Zero is "0s". A negative duration keeps its sign ("-5s"), which parseDuration rejects.
std::string formatDuration(std::chrono::milliseconds duration);

}  // namespace reconsume::detail
