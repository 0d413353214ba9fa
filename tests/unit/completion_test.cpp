// detail::Completion: the handle the public async operations complete through
// (include/reconsume/detail/completion.hpp).
#include "reconsume/detail/completion.hpp"

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <memory>

namespace reconsume::detail {
namespace {

using Done = Completion<void(boost::system::error_code, int)>;

TEST(Completion, CopiesShareOneHandlerThatRunsOnceOnItsExecutor) {
  boost::asio::io_context io;
  int calls = 0, value = 0;
  Done done([&](boost::system::error_code, int v) { ++calls, value = v; }, io.get_executor());
  const Done copy = done;
  copy.complete({}, 7);
  EXPECT_EQ(calls, 0) << "posted, never run inside the call";
  io.run();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(value, 7);
}

TEST(Completion, TheHandlerIsDestroyedAsItReturnsNotWithTheLastCopy) {
  boost::asio::io_context io;
  auto token = std::make_shared<int>(0);
  Done done([token](boost::system::error_code, int) {}, io.get_executor());
  Done kept = done;  // as a library callback may still hold one after the handler ran
  EXPECT_EQ(token.use_count(), 2);
  done.complete({}, 1);
  io.run();
  EXPECT_EQ(token.use_count(), 1) << "what the handler captured is released once it ran";
}

TEST(Completion, KeepsItsExecutorBusyUntilTheHandlerRan) {
  boost::asio::io_context io;
  bool ran = false;
  Done done([&](boost::system::error_code, int) { ran = true; }, io.get_executor());
  io.poll();
  EXPECT_FALSE(io.stopped()) << "outstanding work: run() would wait for the completion";
  done.complete({}, 1);
  io.poll();
  EXPECT_TRUE(ran);
  io.poll();
  EXPECT_TRUE(io.stopped()) << "the work was given up once the handler ran";
}

TEST(Completion, CompleteOnRunsAHandlerOfThatContextRightThere) {
  boost::asio::io_context io;
  bool ran = false, ranInsideTheCall = false;
  Done done([&](boost::system::error_code, int) { ran = true; }, io.get_executor());
  boost::asio::post(io, [&] {
    done.completeOn(io, {}, 1);
    ranInsideTheCall = ran;
  });
  io.run();
  EXPECT_TRUE(ranInsideTheCall);
}

TEST(Completion, CompleteOnPostsAHandlerOfAnotherContext) {
  boost::asio::io_context io, other;
  bool ran = false, ranInsideTheCall = true;
  Done done([&](boost::system::error_code, int) { ran = true; }, other.get_executor());
  boost::asio::post(io, [&] {
    done.completeOn(io, {}, 1);
    ranInsideTheCall = ran;
  });
  io.run();
  EXPECT_FALSE(ranInsideTheCall);
  other.run();
  EXPECT_TRUE(ran);
}

TEST(Completion, CompleteAfterClearsTheSlotAndRunsWithWhatLastReturns) {
  boost::asio::io_context io;
  boost::asio::cancellation_signal signal;
  int value = 0;
  Done done(boost::asio::bind_cancellation_slot(
                signal.slot(), [&](boost::system::error_code, int v) { value = v; }),
            io.get_executor());
  ASSERT_TRUE(done.cancellationSlot().is_connected());
  done.cancellationSlot().assign([](boost::asio::cancellation_type) {});
  EXPECT_TRUE(signal.slot().has_handler());
  done.completeAfter([] { return std::tuple(boost::system::error_code(), 42); });
  io.run();
  EXPECT_EQ(value, 42);
  EXPECT_FALSE(signal.slot().has_handler()) << "a later emit must not reach a finished operation";
}

}  // namespace
}  // namespace reconsume::detail
