// A DeadLetterFilter checked and prepared once (the regular expression compiled, the origin topic
// made canonical), then matched against each dead letter of a scan. The origin rule of SPEC.md §4:
// a topic matches itself and its partitions, a partition only itself.
//
// Thread safety: an instance is immutable after construction; matches may run on several threads.
#pragma once

#include <chrono>
#include <optional>
#include <regex>
#include <string>

#include "reconsume/dead_letter.hpp"

namespace reconsume::detail::dlq {

class CompiledFilter {
 public:
  // Throws Error(errc::invalid_argument) naming the value: a cause other than exhausted, explicit
  // or unknown; a reason that is not a valid ECMAScript regular expression; an origin that is not
  // a topic name; a negative age bound.
  explicit CompiledFilter(const DeadLetterFilter& filter);

  // `now` is the queue's clock, for the age bounds.
  bool matches(const DeadLetter& deadLetter, std::chrono::system_clock::time_point now) const;

 private:
  DeadLetterFilter filter_;
  std::optional<std::regex> reason_;
  std::optional<std::string> origin_;  // canonical
  bool originIsPartition_ = false;     // origin_ ends in -partition-N: matched exactly
};

}  // namespace reconsume::detail::dlq
