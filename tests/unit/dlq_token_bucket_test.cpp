// Replay pacing: the token bucket on a ManualClock, and waiting on a clock.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "dlq/token_bucket.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::invalidArgumentText;
using reconsume::testing::mentions;

TEST(TokenBucket, SpacesTokensOneIntervalApart) {
  ManualClock clock;
  TokenBucket bucket(20);  // 50 ms apart
  EXPECT_EQ(bucket.interval(), 50ms);
  auto start = clock.now();
  for (int i = 0; i < 10; ++i) {
    auto at = bucket.reserve(clock.now());
    EXPECT_EQ(at, start + i * 50ms) << "token " << i;
    clock.set(at);  // the caller waits for its token, then asks for the next
  }
}

TEST(TokenBucket, ACallerThatIsLateIsNotMadeToWaitAndGetsNoBurst) {
  ManualClock clock;
  TokenBucket bucket(10);
  auto start = clock.now();
  EXPECT_EQ(bucket.reserve(start), start);
  clock.advance(1s);  // nine intervals unused
  EXPECT_EQ(bucket.reserve(clock.now()), start + 1s);
  // Burst 1: unused time does not pile up; the next token is one interval after.
  EXPECT_EQ(bucket.reserve(clock.now()), start + 1100ms);
}

TEST(TokenBucket, ABurstLetsThatManyGoAtOnce) {
  ManualClock clock;
  TokenBucket bucket(10, 3);
  auto start = clock.now();
  EXPECT_EQ(bucket.reserve(start), start);
  EXPECT_EQ(bucket.reserve(start), start);
  EXPECT_EQ(bucket.reserve(start), start);
  EXPECT_EQ(bucket.reserve(start), start + 100ms);
  EXPECT_EQ(bucket.reserve(start), start + 200ms);
}

TEST(TokenBucket, TakesEachTokenOnceWhenAskedTwiceForTheSameInstant) {
  ManualClock clock;
  TokenBucket bucket(4);
  auto start = clock.now();
  EXPECT_EQ(bucket.reserve(start), start);
  EXPECT_EQ(bucket.reserve(start), start + 250ms);
  EXPECT_EQ(bucket.reserve(start), start + 500ms);
}

TEST(TokenBucket, FractionalRates) {
  TokenBucket slow(0.5);
  EXPECT_EQ(slow.interval(), 2s);
  TokenBucket odd(3);
  EXPECT_EQ(odd.interval(), std::chrono::nanoseconds(333'333'333));
}

TEST(TokenBucket, RateMustBePositive) {
  for (double rate : {0.0, -5.0}) {
    auto text = invalidArgumentText([&] { TokenBucket bucket(rate); });
    EXPECT_TRUE(mentions(text, "rate"));
  }
  auto text = invalidArgumentText([&] { TokenBucket bucket(std::nan("")); });
  EXPECT_TRUE(mentions(text, "nan"));
  text = invalidArgumentText([&] { TokenBucket bucket(5, 0); });
  EXPECT_TRUE(mentions(text, "burst 0"));
}

TEST(WaitUntil, ReturnsAtOnceWhenTheTimeHasCome) {
  ManualClock clock;
  waitUntil(clock, clock.now());
  waitUntil(clock, clock.now() - 1s);
  EXPECT_FALSE(clock.nextTimer()) << "no timer needed";
}

TEST(WaitUntil, ReturnsWhenTheClockReachesTheTime) {
  ManualClock clock;
  auto due = clock.now() + 250ms;
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    waitUntil(clock, due);
    returned = true;
  });
  // The waiter's timer is the event to wait for; then time moves to just before it, and to it.
  while (!clock.nextTimer()) std::this_thread::yield();
  EXPECT_EQ(*clock.nextTimer(), due);
  clock.set(due - 1ms);
  EXPECT_FALSE(returned);
  clock.set(due);
  waiter.join();
  EXPECT_TRUE(returned);
}

}  // namespace
}  // namespace reconsume::detail::dlq
