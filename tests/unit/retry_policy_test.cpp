#include "reconsume/retry_policy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <thread>
#include <vector>

#include "expect_error.hpp"
#include "retry/retry_policy_state.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using testing::invalidArgumentText;
using testing::mentions;

TEST(RetryPolicy, DefaultMaxRetriesFollowTheKindOfPolicy) {
  EXPECT_EQ(RetryPolicy::levels(DelayLevels::defaultTable()).maxRetries(), 18);
  EXPECT_EQ(RetryPolicy::levels(DelayLevels::parse("1s 2s 3s")).maxRetries(), 3);
  EXPECT_EQ(RetryPolicy::exponential({}).maxRetries(), 16);
  EXPECT_EQ(RetryPolicy::custom([](int n) { return n * 1s; }).maxRetries(), 16);
}

TEST(RetryPolicy, ExplicitMaxRetriesWin) {
  EXPECT_EQ(RetryPolicy::levels(DelayLevels::parse("1s 2s"), 5).maxRetries(), 5);
  EXPECT_EQ(RetryPolicy::exponential({}, 3).maxRetries(), 3);
  EXPECT_EQ(RetryPolicy::custom([](int) { return 1s; }, 1).maxRetries(), 1);
}

TEST(RetryPolicy, RejectsMaxRetriesBelowOneNamingTheValue) {
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::levels(DelayLevels::defaultTable(), 0); }),
               "maxRetries 0"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({}, -3); }), "maxRetries -3"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { RetryPolicy::custom([](int) { return 1s; }, 0); }),
                       "maxRetries 0"));
}

TEST(RetryPolicy, RejectsBadExponentialBoundsNamingTheValue) {
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({.min = 0ms}); }), "min 0s"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({.min = -5s}); }), "min -5s"));
  auto maxBelowMin = invalidArgumentText([] { RetryPolicy::exponential({.min = 2s, .max = 1s}); });
  EXPECT_TRUE(mentions(maxBelowMin, "max 1s"));
  EXPECT_TRUE(mentions(maxBelowMin, "min 2s"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { RetryPolicy::exponential({.multiplier = 1.0}); }),
                       "multiplier 1 "));
  EXPECT_TRUE(mentions(invalidArgumentText([] { RetryPolicy::exponential({.multiplier = 0.5}); }),
                       "multiplier 0.5"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({.multiplier = std::nan("")}); }),
               "multiplier nan"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({.multiplier = INFINITY}); }),
               "multiplier inf"));
  // min == max is a constant delay: allowed.
  EXPECT_EQ(RetryPolicy::exponential({.min = 5s, .max = 5s}).exponentialBackoff()->max, 5s);
}

TEST(RetryPolicy, RejectsEmptyTablesAndFunctions) {
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::levels(DelayLevels{}); }), "at least one"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::custom(nullptr); }), "delay function"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { RetryPolicy::exponential({}).withRandomSource(nullptr); }),
               "random source"));
}

TEST(RetryPolicy, AccessorsTellTheKind) {
  auto levels = RetryPolicy::levels(DelayLevels::parse("1s 5s"));
  ASSERT_NE(levels.levelTable(), nullptr);
  EXPECT_EQ(*levels.levelTable(), DelayLevels::parse("1s 5s"));
  EXPECT_EQ(levels.exponentialBackoff(), nullptr);

  auto exponential = RetryPolicy::exponential({.min = 2s, .jitter = Jitter::equal});
  EXPECT_EQ(exponential.levelTable(), nullptr);
  ASSERT_NE(exponential.exponentialBackoff(), nullptr);
  EXPECT_EQ(exponential.exponentialBackoff()->min, 2s);
  EXPECT_EQ(exponential.exponentialBackoff()->jitter, Jitter::equal);

  auto custom = RetryPolicy::custom([](int) { return 1s; });
  EXPECT_EQ(custom.levelTable(), nullptr);
  EXPECT_EQ(custom.exponentialBackoff(), nullptr);
}

TEST(RetryPolicy, Describes) {
  EXPECT_EQ(RetryPolicy::levels(DelayLevels::parse("1s 5s 10s")).describe(),
            "levels 1s 5s 10s (max 3 retries)");
  EXPECT_EQ(RetryPolicy::exponential({.jitter = Jitter::full}).describe(),
            "exponential 1s..1m x2 jitter=full (max 16 retries)");
  EXPECT_EQ(RetryPolicy::exponential({.min = 250ms, .max = 90s, .multiplier = 1.5}, 1).describe(),
            "exponential 250ms..90s x1.5 jitter=none (max 1 retry)");
  EXPECT_EQ(RetryPolicy::custom([](int) { return 1s; }, 4).describe(), "custom (max 4 retries)");
}

TEST(RetryPolicy, WithRandomSourceKeepsEverythingElse) {
  auto original = RetryPolicy::exponential({.min = 3s, .jitter = Jitter::full}, 7);
  auto seeded = original.withRandomSource([] { return 0.25; });
  EXPECT_EQ(seeded.maxRetries(), 7);
  EXPECT_EQ(seeded.describe(), original.describe());
  EXPECT_EQ(seeded.state().random(), 0.25);
  // The original is unchanged: it still draws from the default source.
  std::set<double> draws;
  for (int i = 0; i < 8; ++i) draws.insert(original.state().random());
  EXPECT_GT(draws.size(), 1u);
}

TEST(RetryPolicy, DefaultRandomSourceIsUniformInUnitIntervalOnEveryThread) {
  auto policy = RetryPolicy::exponential({});
  constexpr int kThreads = 4, kDraws = 20'000;
  std::vector<double> sums(kThreads);
  std::vector<int> outOfRange(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kDraws; ++i) {
        double u = policy.state().random();
        if (!(u >= 0.0 && u < 1.0)) ++outOfRange[t];
        sums[t] += u;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(outOfRange[t], 0);
    // The mean of 20,000 uniform draws is within 0.5 ± 0.01 (about 5 standard deviations).
    EXPECT_NEAR(sums[t] / kDraws, 0.5, 0.01);
  }
}

}  // namespace
}  // namespace reconsume
