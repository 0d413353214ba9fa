// The network layer's clock: a Timer on a ManualSteadyClock completes when the test moves the
// clock past it, on the timer's executor, and reports cancellation like Asio's timers.
#include "common/steady_clock.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST(ManualSteadyClock, ATimerCompletesOnlyOnceTheClockPassedItsExpiry) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);  // poll() does not stop it when it runs out of work
  auto clock = std::make_shared<ManualSteadyClock>();
  Timer timer(io.get_executor(), clock);
  std::optional<boost::system::error_code> result;
  timer.expiresAfter(30s);
  timer.asyncWait([&](boost::system::error_code ec) { result = ec; });
  EXPECT_EQ(clock->pendingWaits(), 1u);
  clock->advance(29s);
  io.poll();
  EXPECT_FALSE(result) << "not due yet";
  clock->advance(1s);
  EXPECT_FALSE(result) << "completes on its executor, not inside advance";
  io.poll();
  ASSERT_TRUE(result);
  EXPECT_FALSE(*result);
  EXPECT_EQ(clock->pendingWaits(), 0u);
}

TEST(ManualSteadyClock, CancellingOrReArmingCompletesTheWaitWithOperationAborted) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);  // poll() does not stop it when it runs out of work
  auto clock = std::make_shared<ManualSteadyClock>();
  Timer timer(io.get_executor(), clock);
  std::vector<boost::system::error_code> results;
  auto record = [&](boost::system::error_code ec) { results.push_back(ec); };
  timer.expiresAfter(1s);
  timer.asyncWait(record);
  timer.cancel();
  timer.expiresAfter(2s);
  timer.asyncWait(record);
  timer.expiresAfter(3s);  // replaces the 2 s wait
  timer.asyncWait(record);
  clock->advance(3s);
  io.poll();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0], asio::error::operation_aborted);
  EXPECT_EQ(results[1], asio::error::operation_aborted);
  EXPECT_FALSE(results[2]);
}

TEST(ManualSteadyClock, AWaitAlreadyDueCompletesAtOnceAndAnAdvanceCompletesInDueOrder) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);  // poll() does not stop it when it runs out of work
  auto clock = std::make_shared<ManualSteadyClock>();
  Timer late(io.get_executor(), clock), early(io.get_executor(), clock),
      now(io.get_executor(), clock);
  std::vector<std::string> order;
  late.expiresAfter(5s);
  late.asyncWait([&](boost::system::error_code) { order.push_back("late"); });
  early.expiresAfter(2s);
  early.asyncWait([&](boost::system::error_code) { order.push_back("early"); });
  now.expiresAt(clock->now());
  now.asyncWait([&](boost::system::error_code) { order.push_back("now"); });
  io.poll();
  EXPECT_EQ(order, std::vector<std::string>{"now"});
  clock->advance(10s);
  io.poll();
  EXPECT_EQ(order, (std::vector<std::string>{"now", "early", "late"}));
}

TEST(ManualSteadyClock, ACoroutineWaitsOnTheClockToo) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);  // poll() does not stop it when it runs out of work
  auto clock = std::make_shared<ManualSteadyClock>();
  bool woke = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        Timer timer(co_await asio::this_coro::executor, clock);
        timer.expiresAfter(1h);
        co_await timer.asyncWait(asio::use_awaitable);
        woke = true;
      },
      asio::detached);
  io.poll();
  EXPECT_TRUE(clock->waitForPendingWaits(1, 1s));
  EXPECT_FALSE(woke);
  clock->advance(1h);
  io.poll();
  EXPECT_TRUE(woke);
}

// A wait's handler belongs to its executor's io_context, as a steady_timer's does: destroying the
// io_context destroys it. A handler that owns its own Timer (a connection's loop waiting on its
// backoff) would otherwise stay in the clock, owning what owns it, and leak.
TEST(ManualSteadyClock, AWaitInProgressIsDestroyedWithItsIoContext) {
  auto clock = std::make_shared<ManualSteadyClock>();
  std::weak_ptr<Timer> watched;
  bool ran = false;
  {
    asio::io_context io;
    auto timer = std::make_shared<Timer>(io.get_executor(), clock);
    watched = timer;
    timer->expiresAfter(1h);
    timer->asyncWait([timer, &ran](boost::system::error_code) { ran = true; });
    timer.reset();
    EXPECT_FALSE(watched.expired()) << "its wait keeps it";
    EXPECT_EQ(clock->pendingWaits(), 1u);
  }
  EXPECT_TRUE(watched.expired()) << "the io_context took the wait's handler with it";
  EXPECT_FALSE(ran);
  EXPECT_EQ(clock->pendingWaits(), 0u);
  clock->advance(2h);  // nothing left to complete
}

TEST(SteadyClock, TheRealClockWaitsForRealTime) {
  asio::io_context io;
  Timer timer(io.get_executor(), SteadyClock::real());
  auto start = std::chrono::steady_clock::now();
  timer.expiresAfter(20ms);
  boost::system::error_code result = asio::error::would_block;
  timer.asyncWait([&](boost::system::error_code ec) { result = ec; });
  io.run();
  EXPECT_FALSE(result);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
}

}  // namespace
}  // namespace reconsume::detail
