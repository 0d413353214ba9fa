#include "dlq/stats.hpp"

#include <array>

namespace reconsume::detail::dlq {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;

struct Bound {
  const char* label;
  milliseconds below;
};

// From a minute (a fresh burst) to a week (long forgotten); the last bucket has no bound.
constexpr std::array<Bound, 6> kBounds{{
    {"<1m", minutes(1)},
    {"<10m", minutes(10)},
    {"<1h", hours(1)},
    {"<6h", hours(6)},
    {"<1d", hours(24)},
    {"<7d", hours(24 * 7)},
}};

}  // namespace

std::vector<AgeBucket> emptyAgeBuckets() {
  std::vector<AgeBucket> buckets;
  for (const auto& bound : kBounds) buckets.push_back({bound.label, bound.below, 0});
  buckets.push_back({"older", std::nullopt, 0});
  return buckets;
}

std::size_t ageBucketOf(milliseconds age) {
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    if (age < kBounds[i].below) return i;
  }
  return kBounds.size();
}

StatsBuilder::StatsBuilder(std::chrono::system_clock::time_point now) : now_(now) {
  stats_.ages = emptyAgeBuckets();
}

void StatsBuilder::add(const DeadLetter& deadLetter) {
  ++stats_.count;
  stats_.payloadBytes += deadLetter.message.data().size();
  ++stats_.byCause[deadLetter.cause];
  ++stats_.byOrigin[deadLetter.originBaseTopic().value_or("")];
  ++stats_.byReason[deadLetter.reason];
  ++stats_.byCategory[deadLetter.category.value_or("-")];
  ++stats_.ages[ageBucketOf(deadLetter.age(now_))].count;
  auto at = deadLetter.deadLetteredAt();
  if (!stats_.oldest || at < *stats_.oldest) stats_.oldest = at;
  if (!stats_.newest || at > *stats_.newest) stats_.newest = at;
  if (deadLetter.replayCount > 0) ++stats_.replayedBefore;
}

}  // namespace reconsume::detail::dlq
