#include "reconsume/clock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "reconsume/error.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

TEST(ManualClock, RunsDueTimersInOrderSeeingTheirOwnDueTime) {
  ManualClock clock;
  auto start = clock.now();
  std::vector<std::pair<int, Clock::time_point>> fired;
  clock.schedule(start + 2h, [&] { fired.emplace_back(2, clock.now()); });
  clock.schedule(start + 1s, [&] { fired.emplace_back(1, clock.now()); });
  clock.schedule(start + 3h, [&] { fired.emplace_back(3, clock.now()); });

  clock.advance(2h);

  ASSERT_EQ(fired.size(), 2u);
  EXPECT_EQ(fired[0], std::make_pair(1, start + 1s));
  EXPECT_EQ(fired[1], std::make_pair(2, start + 2h));
  EXPECT_EQ(clock.now(), start + 2h);
  EXPECT_EQ(clock.nextTimer(), start + 3h);
}

TEST(ManualClock, TimerMayScheduleAnotherThatFallsInTheSameAdvance) {
  ManualClock clock;
  int fired = 0;
  clock.schedule(clock.now() + 1s, [&] {
    ++fired;
    clock.schedule(clock.now() + 1s, [&] { ++fired; });
  });
  clock.advance(5s);
  EXPECT_EQ(fired, 2);
}

TEST(ManualClock, CancelledTimerDoesNotRun) {
  ManualClock clock;
  bool fired = false;
  auto id = clock.schedule(clock.now() + 1s, [&] { fired = true; });
  EXPECT_TRUE(clock.cancel(id));
  EXPECT_FALSE(clock.cancel(id));
  clock.advance(1s);
  EXPECT_FALSE(fired);
}

TEST(ManualClock, TimersDueAtTheSameTimeRunInTheOrderTheyWereScheduled) {
  ManualClock clock;
  auto at = clock.now() + 1s;
  std::vector<int> fired;
  for (int i = 0; i < 20; ++i) clock.schedule(at, [&fired, i] { fired.push_back(i); });
  clock.advance(1s);
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(fired, expected);
}

// A timer cancelled behind others lets go of what its function holds at once, not when its time
// comes; the next timer is the earliest one still pending.
TEST(ManualClock, ACancelledTimerReleasesItsFunctionAndIsNotTheNextTimer) {
  ManualClock clock;
  auto start = clock.now();
  auto held = std::make_shared<int>(7);
  std::weak_ptr<int> watch = held;
  clock.schedule(start + 1s, [] {});
  auto early = clock.schedule(start + 500ms, [] {});
  auto buried = clock.schedule(start + 2h, [held = std::move(held)] {});
  EXPECT_TRUE(clock.cancel(buried));
  EXPECT_TRUE(watch.expired()) << "a cancelled timer kept what its function captured";
  EXPECT_TRUE(clock.cancel(early));
  EXPECT_FALSE(clock.cancel(early));
  EXPECT_EQ(clock.nextTimer(), start + 1s);
  clock.advance(1s);
  EXPECT_EQ(clock.nextTimer(), std::nullopt);
}

// A wait computed from an earlier reading of the clock (a token bucket's next slot) may be
// scheduled after the clock moved past it: it is due now, and "advance to the next timer" runs it
// instead of being refused as a step back.
TEST(ManualClock, ATimerScheduledInThePastIsDueNow) {
  ManualClock clock;
  auto start = clock.now();
  clock.advance(1s);
  bool fired = false;
  clock.schedule(start + 900ms, [&] { fired = true; });
  ASSERT_EQ(clock.nextTimer(), start + 1s);
  clock.set(*clock.nextTimer());
  EXPECT_TRUE(fired);
  EXPECT_EQ(clock.now(), start + 1s);
}

TEST(ManualClock, ThreadsAdvancingAtOnceAddUpTheirSteps) {
  ManualClock clock;
  auto start = clock.now();
  constexpr int kThreads = 4, kSteps = 20000;
  std::atomic<int> fired{0}, refused{0};
  for (int i = 1; i <= 100; ++i) clock.schedule(start + i * 800ms, [&] { ++fired; });
  std::latch ready(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.arrive_and_wait();
      for (int i = 0; i < kSteps; ++i) {
        try {
          clock.advance(1ms);
        } catch (const Error&) {
          ++refused;  // a target computed from a "now" another thread had passed
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(clock.now(), start + std::chrono::milliseconds(kThreads * kSteps));
  EXPECT_EQ(fired, 100);
}

TEST(ManualClock, RefusesToGoBackNamingTheStep) {
  ManualClock clock;
  auto before = clock.now();
  try {
    clock.advance(-5ms);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("-5ms"), std::string::npos) << e.what();
  }
  EXPECT_THROW(clock.set(before - 1s), Error);
  EXPECT_EQ(clock.now(), before);
}

TEST(SystemClock, RunsATimerOnItsThread) {
  SystemClock clock;
  std::promise<std::thread::id> ran;
  clock.schedule(clock.now() + 1ms, [&] { ran.set_value(std::this_thread::get_id()); });
  auto future = ran.get_future();
  ASSERT_EQ(future.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(future.get() != std::this_thread::get_id());
}

TEST(SystemClock, CancelledTimerDoesNotRun) {
  SystemClock clock;
  std::atomic<bool> cancelledRan{false};
  std::promise<void> later;
  auto id = clock.schedule(clock.now() + 20ms, [&] { cancelledRan = true; });
  EXPECT_TRUE(clock.cancel(id));
  // A later timer firing proves the clock went past the cancelled one's due time.
  clock.schedule(clock.now() + 40ms, [&] { later.set_value(); });
  ASSERT_EQ(later.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(cancelledRan);
}

}  // namespace
}  // namespace reconsume
