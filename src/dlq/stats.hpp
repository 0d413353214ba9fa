// Counting dead letters for DeadLetterQueue::stats: by cause, origin, reason and age.
//
// Thread safety: a StatsBuilder belongs to one thread; the free functions are pure.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "reconsume/dead_letter_operations.hpp"

namespace reconsume::detail::dlq {

// The age buckets, all counts 0: <1m, <10m, <1h, <6h, <1d, <7d, older.
std::vector<AgeBucket> emptyAgeBuckets();
// The index into emptyAgeBuckets() of the bucket for `age` (a bucket's bound is exclusive: exactly
// one minute old is in <10m).
std::size_t ageBucketOf(std::chrono::milliseconds age);

class StatsBuilder {
 public:
  explicit StatsBuilder(std::chrono::system_clock::time_point now);
  void add(const DeadLetter& deadLetter);
  const DeadLetterStats& stats() const { return stats_; }

 private:
  std::chrono::system_clock::time_point now_;
  DeadLetterStats stats_;
};

}  // namespace reconsume::detail::dlq
