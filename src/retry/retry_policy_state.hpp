// What a RetryPolicy holds (the public header only declares RetryPolicy::State). Internal:
// the routing decision reads it; users go through RetryPolicy's accessors.
//
// Thread safety: a State is immutable once built and shared between copies of a policy.
#pragma once

#include <optional>
#include <variant>

#include "reconsume/retry_policy.hpp"

namespace reconsume {

struct RetryPolicy::State {
  // The application's own delay function (RetryPolicy::custom).
  struct Custom {
    DelayFunction delay;
  };
  using Kind = std::variant<DelayLevels, ExponentialBackoff, Custom>;

  Kind kind;
  int maxRetries = 0;
  RandomSource random;  // never empty: the default source unless the user gave one
  std::optional<std::chrono::milliseconds> timeLimit;  // withTimeLimit
};

}  // namespace reconsume
