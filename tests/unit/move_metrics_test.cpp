// MoveMetrics: each move counted in the series of its route (retry level, dead-letter cause,
// category), whether the series was the last one used (found without the lock) or not.
#include "retry/move_metrics.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace reconsume::detail::retry {
namespace {

using namespace std::chrono_literals;

Route retryAt(int level, std::optional<std::string> category = std::nullopt) {
  Route route;
  route.destination = Destination::retryTopic;
  route.count = level;
  route.level = level;
  route.category = std::move(category);
  return route;
}

Route deadLetter(DeadLetterCause cause) {
  Route route;
  route.destination = Destination::deadLetterTopic;
  route.cause = cause;
  return route;
}

std::uint64_t retries(const MetricsSnapshot& snapshot, const std::string& level,
                      const std::string& category = "") {
  return snapshot.counter(
      metrics::kRetries.name,
      {{metrics::kGroup, "billing"}, {metrics::kLevel, level}, {metrics::kCategory, category}});
}

TEST(MoveMetrics, EachMoveCountsInTheSeriesOfItsRoute) {
  auto registry = std::make_shared<MetricsRegistry>();
  MoveMetrics metrics(registry, "billing");
  // Runs of one series (the cached path) and changes between series, categories and causes.
  for (int i = 0; i < 3; ++i) metrics.moved(retryAt(1), 1ms);
  metrics.moved(retryAt(2), 1ms);
  metrics.moved(retryAt(1), 1ms);
  metrics.moved(retryAt(1, "timeout"), 1ms);
  metrics.moved(retryAt(1, "timeout"), 1ms);
  metrics.moved(retryAt(1), 1ms);
  metrics.counted(deadLetter(DeadLetterCause::exhausted));
  metrics.moved(deadLetter(DeadLetterCause::explicitCall), 1ms);
  metrics.moved(retryAt(2), 1ms);

  const auto snapshot = registry->snapshot();
  EXPECT_EQ(retries(snapshot, "1"), 5u);
  EXPECT_EQ(retries(snapshot, "2"), 2u);
  EXPECT_EQ(retries(snapshot, "1", "timeout"), 2u);
  EXPECT_EQ(
      snapshot.counter(metrics::kDeadLetters.name,
                       {{metrics::kCause, std::string(toString(DeadLetterCause::exhausted))}}),
      1u);
  EXPECT_EQ(snapshot.counter(metrics::kDeadLetters.name), 2u);
}

TEST(MoveMetrics, MovesFromManyThreadsAddUp) {
  auto registry = std::make_shared<MetricsRegistry>();
  MoveMetrics metrics(registry, "billing");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < 5'000; ++i) metrics.moved(retryAt(1 + (i + t) % 3), 1ms);
    });
  }
  for (auto& thread : threads) thread.join();
  const auto snapshot = registry->snapshot();
  EXPECT_EQ(retries(snapshot, "1") + retries(snapshot, "2") + retries(snapshot, "3"), 20'000u);
  EXPECT_EQ(snapshot.counter(metrics::kRetries.name), 20'000u);
}

}  // namespace
}  // namespace reconsume::detail::retry
