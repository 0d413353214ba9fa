// Epoch milliseconds from outside (message properties, broker metadata) as system_clock time
// points.
//
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace reconsume::detail {

// `ms` since the epoch as a time point. system_clock counts nanoseconds (libstdc++), so only about
// ±292 years around 1970 fit: values beyond are clamped to the nearest time point that does, where
// the plain conversion would overflow (undefined behaviour) for a hostile or garbled value such
// as a RECONSUME_HISTORY "at" of 1e17.
inline std::chrono::system_clock::time_point fromEpochMillis(std::int64_t ms) {
  using std::chrono::milliseconds;
  using Duration = std::chrono::system_clock::duration;
  constexpr std::int64_t kMax = std::chrono::duration_cast<milliseconds>(Duration::max()).count();
  constexpr std::int64_t kMin = std::chrono::duration_cast<milliseconds>(Duration::min()).count();
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<Duration>(milliseconds(std::clamp(ms, kMin, kMax))));
}

// The same for the unsigned times of Pulsar's metadata (publish_time, event_time).
inline std::chrono::system_clock::time_point fromEpochMillis(std::uint64_t ms) {
  return fromEpochMillis(static_cast<std::int64_t>(
      std::min<std::uint64_t>(ms, static_cast<std::uint64_t>(INT64_MAX))));
}

// The other way: a time point as Pulsar's unsigned epoch milliseconds (0 before the epoch).
inline std::uint64_t toEpochMillis(std::chrono::system_clock::time_point at) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  return ms < 0 ? 0 : static_cast<std::uint64_t>(ms);
}

}  // namespace reconsume::detail
