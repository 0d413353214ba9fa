// The fault run's handler decides deterministically, from the message's id n and its
// RECONSUMETIMES, what happens to one delivery: 2% of ids always fail permanently (deadLetter,
// "invalid"); every other delivery fails transiently with 30% (reconsumeLater) and succeeds
// otherwise. With maxRetries 3, a message failing its fourth delivery too goes to the dead-letter
// topic, exhausted. So each id's final outcome is known in advance (expectedOutcome), and a second
// chain of the same message (a duplicate) takes the same path.
#pragma once

#include <cstdint>

namespace reconsume::integration::faultrun {

inline constexpr int kMaxRetries = 3;
inline constexpr const char* kLevels = "50ms 100ms 200ms";

enum class Action { succeed, retry, deadLetter };
enum class Outcome { processed, invalid, exhausted };

// splitmix64's finaliser: a well-mixed hash of x.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline bool failsPermanently(int n) {
  return mix(0x5eed'0000'0000ULL ^ static_cast<std::uint64_t>(n)) % 10000 < 200;  // 2%
}

inline bool failsTransiently(int n, int reconsumeTimes) {
  auto key = (static_cast<std::uint64_t>(n) << 8) | static_cast<std::uint64_t>(reconsumeTimes);
  return mix(0xfa17'0000'0000'0000ULL ^ key) % 10000 < 3000;  // 30%
}

inline Action actionFor(int n, int reconsumeTimes) {
  if (failsPermanently(n)) return Action::deadLetter;
  return failsTransiently(n, reconsumeTimes) ? Action::retry : Action::succeed;
}

inline Outcome expectedOutcome(int n) {
  if (failsPermanently(n)) return Outcome::invalid;
  for (int times = 0; times <= kMaxRetries; ++times) {
    if (!failsTransiently(n, times)) return Outcome::processed;
  }
  return Outcome::exhausted;
}

}  // namespace reconsume::integration::faultrun
