#include "retry/routing.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <deque>
#include <memory>

#include "common/duration.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::retry {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using testing::invalidArgumentText;
using testing::mentions;
using Properties = detail::Properties;
using Kind = RetryRequest::Kind;

// A random source that plays back a script and counts how often it was asked.
struct Script {
  std::shared_ptr<std::deque<double>> values;
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  explicit Script(std::initializer_list<double> v)
      : values(std::make_shared<std::deque<double>>(v)) {}
  RandomSource source() const {
    return [values = values, calls = calls] {
      ++*calls;
      double u = values->front();
      values->pop_front();
      return u;
    };
  }
};

RetryRequest next() {
  return {};
}
RetryRequest atLevel(int level) {
  return {.kind = Kind::level, .level = level};
}
RetryRequest after(milliseconds delay) {
  return {.kind = Kind::delay, .delay = delay};
}
RetryRequest toDeadLetter() {
  return {.kind = Kind::deadLetter};
}

Properties times(std::string count) {
  return {{"RECONSUMETIMES", std::move(count)}};
}

const RetryPolicy kDefaultLevels = RetryPolicy::levels(DelayLevels::defaultTable());

TEST(Routing, FirstRetryCountsOneAndUsesTheFirstLevel) {
  auto route = decide(kDefaultLevels, {}, next());
  EXPECT_EQ(route.destination, Destination::retryTopic);
  EXPECT_EQ(route.count, 1);
  EXPECT_EQ(route.level, 1);
  EXPECT_EQ(route.delay, 1s);
  EXPECT_FALSE(route.cause);
  EXPECT_FALSE(route.malformedCount);
}

TEST(Routing, CountIsIncomingPlusOneAndPicksThatLevel) {
  auto route = decide(kDefaultLevels, times("3"), next());
  EXPECT_EQ(route.count, 4);
  EXPECT_EQ(route.level, 4);
  EXPECT_EQ(route.delay, 30s);
  EXPECT_EQ(decide(kDefaultLevels, times("17"), next()).delay, 2h);
  EXPECT_EQ(decide(kDefaultLevels, times("007"), next()).count, 8);
}

TEST(Routing, UnparsableCountCountsAsZeroAndIsFlagged) {
  for (const char* bad : {"", "abc", "-1", "+2", " 3", "3 ", "3.0", "0x3", "３"}) {
    auto route = decide(kDefaultLevels, times(bad), next());
    EXPECT_EQ(route.count, 1) << bad;
    EXPECT_EQ(route.level, 1) << bad;
    EXPECT_TRUE(route.malformedCount) << bad;
  }
  EXPECT_FALSE(decide(kDefaultLevels, times("0"), next()).malformedCount);
}

TEST(Routing, AHugeCountIsExhaustedNotOverflowed) {
  auto policy = RetryPolicy::exponential({}, INT_MAX);
  auto route = decide(policy, times("99999999999999999999999"), next());
  EXPECT_EQ(route.destination, Destination::retryTopic);
  EXPECT_EQ(route.count, INT_MAX);
  EXPECT_EQ(route.delay, 60s);
  EXPECT_EQ(decide(kDefaultLevels, times("2147483647"), next()).cause, DeadLetterCause::exhausted);
}

TEST(Routing, CountAboveMaxRetriesGoesToTheDeadLetterTopic) {
  auto policy = RetryPolicy::levels(DelayLevels::parse("1s 2s 3s"));
  EXPECT_EQ(decide(policy, times("2"), next()).destination, Destination::retryTopic);
  auto route = decide(policy, times("3"), next());
  EXPECT_EQ(route.destination, Destination::deadLetterTopic);
  EXPECT_EQ(route.count, 4);
  EXPECT_EQ(route.cause, DeadLetterCause::exhausted);
  EXPECT_EQ(route.delay, 0ms);
  EXPECT_FALSE(route.level);
  // Also for an explicit level or delay.
  EXPECT_EQ(decide(policy, times("3"), atLevel(1)).cause, DeadLetterCause::exhausted);
  EXPECT_EQ(decide(policy, times("3"), after(5s)).cause, DeadLetterCause::exhausted);
  // The default table allows 18 retries.
  EXPECT_EQ(decide(kDefaultLevels, times("17"), next()).destination, Destination::retryTopic);
  EXPECT_EQ(decide(kDefaultLevels, times("18"), next()).destination, Destination::deadLetterTopic);
}

TEST(Routing, ExponentialDefaultAllowsSixteenRetries) {
  auto policy = RetryPolicy::exponential({});
  EXPECT_EQ(decide(policy, times("15"), next()).destination, Destination::retryTopic);
  EXPECT_EQ(decide(policy, times("16"), next()).destination, Destination::deadLetterTopic);
}

TEST(Routing, DeadLetterCallDoesNotCountAsARetry) {
  auto route = decide(kDefaultLevels, times("2"), toDeadLetter());
  EXPECT_EQ(route.destination, Destination::deadLetterTopic);
  EXPECT_EQ(route.count, 2);
  EXPECT_EQ(route.cause, DeadLetterCause::explicitCall);
  EXPECT_EQ(route.delay, 0ms);
  EXPECT_EQ(decide(kDefaultLevels, {}, toDeadLetter()).count, 0);
  auto malformed = decide(kDefaultLevels, times("x"), toDeadLetter());
  EXPECT_EQ(malformed.count, 0);
  EXPECT_TRUE(malformed.malformedCount);
}

TEST(Routing, NextLevelFollowsAnIncomingReconsumeLevel) {
  // An explicit level 5 on the previous hop: the next step is level 6, whatever the count.
  auto route = decide(kDefaultLevels, {{"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "5"}}, next());
  EXPECT_EQ(route.count, 2);
  EXPECT_EQ(route.level, 6);
  EXPECT_EQ(route.delay, 2min);
  // Unparsable: counted from RECONSUMETIMES.
  EXPECT_EQ(
      decide(kDefaultLevels, {{"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "five"}}, next()).level,
      2);
}

TEST(Routing, NextLevelIsClampedToTheTable) {
  auto policy = RetryPolicy::levels(DelayLevels::parse("1s 2s"), 5);
  auto route = decide(policy, times("3"), next());
  EXPECT_EQ(route.count, 4);
  EXPECT_EQ(route.level, 2);
  EXPECT_EQ(route.delay, 2s);
  EXPECT_EQ(decide(policy, {{"RECONSUME_LEVEL", "2"}}, next()).level, 2);
  EXPECT_EQ(decide(policy, {{"RECONSUME_LEVEL", "99999999999999999999"}}, next()).level, 2);
  EXPECT_EQ(decide(policy, {{"RECONSUME_LEVEL", "0"}}, next()).level, 1);
}

TEST(Routing, ExplicitLevelUsesThatEntry) {
  auto route = decide(kDefaultLevels, times("0"), atLevel(18));
  EXPECT_EQ(route.destination, Destination::retryTopic);
  EXPECT_EQ(route.count, 1);
  EXPECT_EQ(route.level, 18);
  EXPECT_EQ(route.delay, 2h);
}

TEST(Routing, ExplicitLevelOutsideTheTableIsAnErrorEvenWhenExhausted) {
  for (int level : {0, 19, -2}) {
    auto text = invalidArgumentText([&] { decide(kDefaultLevels, {}, atLevel(level)); });
    EXPECT_TRUE(mentions(text, "level " + std::to_string(level)));
    EXPECT_TRUE(mentions(text, "1..18"));
  }
  auto text = invalidArgumentText([&] { decide(kDefaultLevels, times("50"), atLevel(19)); });
  EXPECT_TRUE(mentions(text, "level 19"));
}

TEST(Routing, ExplicitLevelNeedsALevelTable) {
  auto text = invalidArgumentText([] { decide(RetryPolicy::exponential({}), {}, atLevel(2)); });
  EXPECT_TRUE(mentions(text, "level 2"));
  EXPECT_TRUE(mentions(text, "level-table"));
  EXPECT_TRUE(mentions(text, "exponential 1s..1m"));
}

TEST(Routing, ExplicitDelayIsUsedExactlyWithoutJitterOrLevel) {
  Script script{};
  auto policy =
      RetryPolicy::exponential({.jitter = Jitter::full}).withRandomSource(script.source());
  auto route = decide(policy, times("4"), after(1234ms));
  EXPECT_EQ(route.destination, Destination::retryTopic);
  EXPECT_EQ(route.count, 5);
  EXPECT_EQ(route.delay, 1234ms);
  EXPECT_FALSE(route.level);
  EXPECT_EQ(*script.calls, 0);
  EXPECT_EQ(decide(kDefaultLevels, {}, after(0ms)).delay, 0ms);  // zero: immediately
  EXPECT_FALSE(decide(kDefaultLevels, {}, after(3h)).level);
}

TEST(Routing, NegativeDelayIsAnErrorEvenWhenExhausted) {
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { decide(kDefaultLevels, {}, after(-5s)); }), "delay -5s"));
  EXPECT_TRUE(mentions(
      invalidArgumentText([] { decide(kDefaultLevels, times("40"), after(-1ms)); }), "delay -1ms"));
}

TEST(Routing, ExponentialDoublesFromMinUpToMax) {
  auto policy = RetryPolicy::exponential({.min = 1s, .max = 60s, .multiplier = 2});
  std::vector<milliseconds> delays;
  for (int previous = 0; previous < 8; ++previous) {
    delays.push_back(decide(policy, times(std::to_string(previous)), next()).delay);
  }
  EXPECT_EQ(delays, (std::vector<milliseconds>{1s, 2s, 4s, 8s, 16s, 32s, 60s, 60s}));
  EXPECT_FALSE(decide(policy, {}, next()).level);
}

TEST(Routing, ExponentialSaturatesAtMaxForHugeCounts) {
  auto policy = RetryPolicy::exponential(
      {.min = 1ms, .max = detail::kLongestDuration, .multiplier = 10}, INT_MAX);
  EXPECT_EQ(decide(policy, times("1000"), next()).delay, detail::kLongestDuration);
  EXPECT_EQ(decide(policy, times("2147483646"), next()).delay, detail::kLongestDuration);
  EXPECT_THROW(RetryPolicy::exponential({.min = 1ms, .max = milliseconds::max()}), Error)
      << "longer than 100 years would overflow the clock it is added to";
}

TEST(Routing, FractionalMultiplierRoundsToTheNearestMillisecond) {
  auto policy = RetryPolicy::exponential({.min = 1s, .max = 1h, .multiplier = 1.5});
  EXPECT_EQ(decide(policy, times("1"), next()).delay, 1500ms);
  EXPECT_EQ(decide(policy, times("3"), next()).delay, 3375ms);
  EXPECT_EQ(decide(policy, times("4"), next()).delay, 5063ms);  // 5062.5
  EXPECT_EQ(decide(policy, times("5"), next()).delay, 7594ms);  // 7593.75
}

TEST(Routing, FullJitterIsUniformBelowTheStep) {
  Script script{0.25, 0.0, 0.999};
  auto policy =
      RetryPolicy::exponential({.jitter = Jitter::full}).withRandomSource(script.source());
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 1000ms);  // 0.25 × 4 s
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 0ms);
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 3996ms);
  EXPECT_EQ(*script.calls, 3);
}

TEST(Routing, EqualJitterKeepsHalfTheStep) {
  Script script{0.5, 0.0};
  auto policy =
      RetryPolicy::exponential({.jitter = Jitter::equal}).withRandomSource(script.source());
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 3000ms);  // 2 s + 0.5 × 2 s
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 2000ms);
}

TEST(Routing, DecorrelatedJitterGrowsFromThePreviousDelay) {
  Script script{0.5, 0.5, 0.9, 0.0};
  auto policy = RetryPolicy::exponential({.min = 1s, .max = 60s, .jitter = Jitter::decorrelated})
                    .withRandomSource(script.source());
  // U(min, 3 × previous): previous 2 s → U(1 s, 6 s).
  EXPECT_EQ(decide(policy, {{"RECONSUMETIMES", "1"}, {"DELAY_TIME", "2000"}}, next()).delay,
            3500ms);
  // No previous delay: previous = min → U(1 s, 3 s).
  EXPECT_EQ(decide(policy, {}, next()).delay, 2000ms);
  // Capped at max.
  EXPECT_EQ(decide(policy, {{"DELAY_TIME", "100000"}}, next()).delay, 60s);
  // A previous delay below min/3 (an explicit zero delay) still starts at min.
  EXPECT_EQ(decide(policy, {{"DELAY_TIME", "0"}}, next()).delay, 1s);
}

TEST(Routing, UnparsablePreviousDelayCountsAsMin) {
  Script script{0.5};
  auto policy = RetryPolicy::exponential({.min = 1s, .max = 60s, .jitter = Jitter::decorrelated})
                    .withRandomSource(script.source());
  EXPECT_EQ(decide(policy, {{"DELAY_TIME", "-7"}}, next()).delay, 2000ms);
}

TEST(Routing, JitterStaysWithinZeroAndMaxWhateverTheSourceReturns) {
  for (Jitter jitter : {Jitter::full, Jitter::equal, Jitter::decorrelated}) {
    for (double u : {-1.0, 1.0, 7.5, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
      Script script{u};
      auto policy = RetryPolicy::exponential({.min = 1s, .max = 10s, .jitter = jitter})
                        .withRandomSource(script.source());
      auto delay = decide(policy, {{"RECONSUMETIMES", "9"}, {"DELAY_TIME", "9000"}}, next()).delay;
      EXPECT_GE(delay, 0ms) << static_cast<int>(jitter) << " u=" << u;
      EXPECT_LE(delay, 10s) << static_cast<int>(jitter) << " u=" << u;
    }
  }
}

TEST(Routing, CustomPolicyUsesTheApplicationsFunction) {
  auto policy = RetryPolicy::custom([](int n) { return n * 100ms; }, 3);
  EXPECT_EQ(decide(policy, times("2"), next()).delay, 300ms);
  EXPECT_FALSE(decide(policy, times("2"), next()).level);
  EXPECT_EQ(decide(policy, times("3"), next()).destination, Destination::deadLetterTopic);
}

TEST(Routing, CustomPolicyWithANegativeDelayIsAnErrorNamingIt) {
  auto policy = RetryPolicy::custom([](int) { return -1s; });
  auto text = invalidArgumentText([&] { decide(policy, times("2"), next()); });
  EXPECT_TRUE(mentions(text, "-1s"));
  EXPECT_TRUE(mentions(text, "retry 3"));
}

TEST(Routing, CustomPolicyExceptionsPropagate) {
  auto policy = RetryPolicy::custom([](int) -> milliseconds { throw std::runtime_error("boom"); });
  EXPECT_THROW(decide(policy, {}, next()), std::runtime_error);
}

TEST(Routing, DecideDoesNotChangeItsInputs) {
  const Properties incoming{{"RECONSUMETIMES", "2"}, {"RECONSUME_LEVEL", "2"}, {"k", "v"}};
  Properties copy = incoming;
  decide(kDefaultLevels, copy, next());
  EXPECT_EQ(copy, incoming);
}

TEST(RetryRequest, FromReconsumeOptions) {
  EXPECT_EQ(RetryRequest::from({}).kind, Kind::next);
  auto level = RetryRequest::from({.level = 3});
  EXPECT_EQ(level.kind, Kind::level);
  EXPECT_EQ(level.level, 3);
  auto delay = RetryRequest::from({.delay = 5s});
  EXPECT_EQ(delay.kind, Kind::delay);
  EXPECT_EQ(delay.delay, 5s);
  auto text = invalidArgumentText([] { RetryRequest::from({.level = 3, .delay = 5s}); });
  EXPECT_TRUE(mentions(text, "level 3"));
  EXPECT_TRUE(mentions(text, "delay 5s"));
}

TEST(DeadLetterCause, IsWrittenAsSpecified) {
  EXPECT_EQ(toString(DeadLetterCause::exhausted), "exhausted");
  EXPECT_EQ(toString(DeadLetterCause::explicitCall), "explicit");
}

TEST(PropertyCount, AcceptsOnlyPlainNonNegativeIntegers) {
  EXPECT_EQ(parsePropertyCount("0"), 0);
  EXPECT_EQ(parsePropertyCount("42"), 42);
  EXPECT_EQ(parsePropertyCount("0042"), 42);
  EXPECT_EQ(parsePropertyCount("99999999999999999999"), INT64_MAX);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e3", "1.0", "x"}) {
    EXPECT_FALSE(parsePropertyCount(bad)) << bad;
  }
}

}  // namespace
}  // namespace reconsume::detail::retry
