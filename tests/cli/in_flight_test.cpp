// The window of `reconsume perf` (tools/in_flight.hpp): it never lets more than its size be in
// flight, sleeps rather than losing a permit, and waitForAll() returns only after the last release.
#include "in_flight.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

namespace reconsume::tools {
namespace {

TEST(InFlight, NeverLetsMoreThanItsWindowBeInFlightAndWaitsForTheLast) {
  constexpr int kWindow = 3;
  constexpr int kOperations = 20'000;
  auto inFlight = std::make_shared<InFlight>(kWindow);
  std::atomic<int> running{0}, most{0}, completed{0};
  // Two completing threads, as a client's I/O threads would be: each completes the next operation
  // started and not yet completed, every seventh as a failure.
  std::atomic<int> next{0};
  std::atomic<bool> stop{false};
  auto complete = [&] {
    for (;;) {
      int taken = completed.load();
      if (taken >= next.load()) {
        if (stop.load() && completed.load() >= next.load()) return;
        std::this_thread::yield();
        continue;
      }
      if (!completed.compare_exchange_weak(taken, taken + 1)) continue;
      running.fetch_sub(1);
      inFlight->release(/*failed=*/taken % 7 == 0);
    }
  };
  std::thread first(complete), second(complete);
  for (int i = 0; i < kOperations; ++i) {
    inFlight->acquire();
    int now = running.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    next.fetch_add(1);
  }
  inFlight->waitForAll();
  // Every operation completed before waitForAll() returned.
  EXPECT_EQ(running.load(), 0);
  EXPECT_EQ(completed.load(), kOperations);
  stop = true;
  first.join();
  second.join();
  EXPECT_LE(most.load(), kWindow);
  EXPECT_GE(most.load(), 1);
  EXPECT_EQ(inFlight->failures(), (kOperations + 6) / 7);
  // waitForAll() gave every permit back: a second round can fill the whole window again.
  for (int i = 0; i < kWindow; ++i) inFlight->acquire();
  for (int i = 0; i < kWindow; ++i) inFlight->release(false);
  inFlight->waitForAll();
}

TEST(InFlight, ASleepingAcquireWakesForTheReleaseOfAnotherThread) {
  InFlight inFlight(1);
  inFlight.acquire();
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    inFlight.acquire();  // the window is full: sleeps until the release below
    acquired = true;
    inFlight.release(false);
  });
  EXPECT_FALSE(acquired.load());
  inFlight.release(false);
  waiter.join();
  EXPECT_TRUE(acquired.load());
  inFlight.waitForAll();
  EXPECT_EQ(inFlight.failures(), 0);
}

TEST(InFlight, ABurstOfReleasesWakesASleepingAcquireOnce) {
  // A receipt's completions arrive together: only the first of them, which gives the sleeping
  // thread its permit, locks and signals; the rest find no one waiting for them.
  constexpr int kWindow = 8;
  InFlight inFlight(kWindow);
  for (int i = 0; i < kWindow; ++i) inFlight.acquire();
  std::thread waiter([&] { inFlight.acquire(); });
  while (!inFlight.sleeping()) std::this_thread::yield();
  for (int i = 0; i < kWindow; ++i) inFlight.release(false);
  waiter.join();
  EXPECT_EQ(inFlight.wakes(), 1);
  inFlight.release(false);  // the waiter's permit
  inFlight.waitForAll();
  EXPECT_EQ(inFlight.wakes(), 1);  // waitForAll() found every permit back: it did not sleep
}

TEST(InFlight, KeepsTheFirstFailuresCodeAndSaysThatOneFailed) {
  InFlight inFlight(4);
  for (int i = 0; i < 4; ++i) inFlight.acquire();
  inFlight.release(boost::system::error_code());
  EXPECT_FALSE(inFlight.failed());
  EXPECT_FALSE(inFlight.firstFailure().has_value());
  inFlight.release(make_error_code(boost::system::errc::timed_out));
  EXPECT_TRUE(inFlight.failed());
  inFlight.release(make_error_code(boost::system::errc::connection_refused));
  inFlight.release(boost::system::error_code());
  inFlight.waitForAll();
  EXPECT_EQ(inFlight.failures(), 2);
  ASSERT_TRUE(inFlight.firstFailure().has_value());
  EXPECT_EQ(*inFlight.firstFailure(), make_error_code(boost::system::errc::timed_out));
}

}  // namespace
}  // namespace reconsume::tools
