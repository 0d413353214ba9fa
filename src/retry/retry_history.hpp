// RECONSUME_HISTORY (SPEC.md §2, ours): a JSON array of the last hops, newest last,
// [{"n":1,"at":1700000000000,"delay":1000,"reason":"timeout"}, ...] (plus "category":"…" after
// the reason for a hop that had one), bounded in entries and
// bytes. Earlier entries are kept byte for byte (no re-serialisation), so appending is cheap.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace reconsume::detail::retry {

inline constexpr std::size_t kHistoryMaxEntries = 8;
inline constexpr std::size_t kHistoryMaxBytes = 4096;

struct HistoryEntry {
  int count = 0;                             // "n": RECONSUMETIMES of the new message
  std::chrono::system_clock::time_point at;  // "at", epoch ms
  std::chrono::milliseconds delay{0};        // "delay", ms
  std::string_view reason;                   // "reason", already cut to size
  std::string_view category;                 // "category", written when not empty
};

// `previous` (the incoming RECONSUME_HISTORY, or nullptr when absent) with `entry` appended and
// the oldest entries dropped until at most kHistoryMaxEntries remain and the array serialises to
// at most kHistoryMaxBytes. A previous value that is not a JSON array (malformed, or written by
// someone else) is replaced by a new array. If the new entry alone is too large, its reason is
// shortened (whole characters only).
std::string appendHistory(const std::string* previous, const HistoryEntry& entry);
// The same, appended to `out` (the retry layer writes it straight into the new message's
// properties).
void appendHistory(std::string& out, std::optional<std::string_view> previous,
                   const HistoryEntry& entry);

}  // namespace reconsume::detail::retry
