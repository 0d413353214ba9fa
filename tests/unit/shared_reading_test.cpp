#include "common/shared_reading.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;

// A clock whose steady time moves a second at every reading, and which counts its readings.
class SteppingClock final : public Clock {
 public:
  time_point now() const override { return time_point{}; }
  TimerId schedule(time_point, std::function<void()>) override { return 0; }
  bool cancel(TimerId) override { return false; }
  steady_time_point steadyNow() const override {
    ++readings;
    return steady_time_point(std::chrono::seconds(readings.load()));
  }
  mutable std::atomic<int> readings{0};
};

TEST(SharedReading, InsideAScopeTheClockIsNotReadAgain) {
  SteppingClock clock;
  const auto at = clock.steadyNow();
  {
    SharedReading reading(clock, at);
    EXPECT_EQ(SharedReading::steadyNow(clock), at);
    EXPECT_EQ(SharedReading::steadyNow(clock), at);
    EXPECT_EQ(clock.readings, 1);
  }
  // Closed: a new reading, later than the scope's.
  EXPECT_GT(SharedReading::steadyNow(clock), at);
  EXPECT_EQ(clock.readings, 2);
}

TEST(SharedReading, AnotherClockIsReadAsUsual) {
  SteppingClock scoped, other;
  SharedReading reading(scoped, scoped.steadyNow());
  EXPECT_EQ(SharedReading::steadyNow(other), Clock::steady_time_point(1s));
  EXPECT_EQ(SharedReading::steadyNow(other), Clock::steady_time_point(2s));
  EXPECT_EQ(other.readings, 2);
}

TEST(SharedReading, TheInnermostScopeWinsAndTheOuterOneComesBack) {
  SteppingClock clock;
  const Clock::steady_time_point outer(10s), inner(20s);
  SharedReading outerReading(clock, outer);
  {
    SharedReading innerReading(clock, inner);
    EXPECT_EQ(SharedReading::steadyNow(clock), inner);
  }
  EXPECT_EQ(SharedReading::steadyNow(clock), outer);
  EXPECT_EQ(clock.readings, 0);
}

TEST(SharedReading, AScopeWithoutAReadingSharesTheFirstOneMadeInIt) {
  SteppingClock clock, other;
  {
    SharedReading batch;
    const auto first = SharedReading::steadyNow(clock);
    EXPECT_EQ(SharedReading::steadyNow(clock), first);
    EXPECT_EQ(SharedReading::steadyNow(clock), first);
    EXPECT_EQ(clock.readings, 1);
    // Taken by the first clock: another one is read each time.
    EXPECT_NE(SharedReading::steadyNow(other), SharedReading::steadyNow(other));
  }
  EXPECT_EQ(SharedReading::steadyNow(clock), Clock::steady_time_point(2s));
}

TEST(SharedReading, AReadingTakenInsideAnInnerScopeStaysThere) {
  SteppingClock clock;
  SharedReading batch;
  const auto first = SharedReading::steadyNow(clock);  // the batch's
  {
    SharedReading inner(clock, Clock::steady_time_point(50s));
    EXPECT_EQ(SharedReading::steadyNow(clock), Clock::steady_time_point(50s));
  }
  EXPECT_EQ(SharedReading::steadyNow(clock), first);  // the batch's reading came back with it
  {
    SharedReading innerBatch;  // a new row: its own first reading
    EXPECT_EQ(SharedReading::steadyNow(clock), Clock::steady_time_point(2s));
  }
  EXPECT_EQ(SharedReading::steadyNow(clock), first);
  EXPECT_EQ(clock.readings, 2);
}

TEST(SharedReading, AScopeBelongsToItsThreadAlone) {
  SteppingClock clock;
  SharedReading reading(clock, Clock::steady_time_point(100s));
  Clock::steady_time_point elsewhere;
  std::thread([&] { elsewhere = SharedReading::steadyNow(clock); }).join();
  EXPECT_EQ(elsewhere, Clock::steady_time_point(1s));  // read, not the scope's 100 s
  EXPECT_EQ(SharedReading::steadyNow(clock), Clock::steady_time_point(100s));
}

}  // namespace
}  // namespace reconsume::detail
