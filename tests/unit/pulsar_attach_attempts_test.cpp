#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "pulsar/attach_attempts.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;

// A network with only the options AttachAttempts reads (no lookup: these tests make no attempt).
std::shared_ptr<Network> networkWith(std::chrono::milliseconds operationTimeout,
                                     std::chrono::milliseconds initialBackoff) {
  auto options = std::make_shared<ConnectionOptions>();
  options->operationTimeout = operationTimeout;
  options->backoff = {initialBackoff, 8 * initialBackoff, 0.0};
  auto network = std::make_shared<Network>();
  network->options = options;
  return network;
}

class AttachAttemptsTest : public ::testing::Test {
 protected:
  boost::asio::io_context io;
  AttachAttempts::Strand strand = boost::asio::make_strand(io.get_executor());
  int runs = 0;
  std::function<void()> again = [this] { ++runs; };
};

TEST_F(AttachAttemptsTest, CreationRetriesARetryableFailureWhileTimeIsLeft) {
  AttachAttempts attempts(strand, networkWith(10s, 1ms));
  attempts.beginCreation();
  EXPECT_TRUE(attempts.retryCreation(Status(errc::connection_lost, "reset by peer"), again));
  io.run();
  EXPECT_EQ(runs, 1);
}

TEST_F(AttachAttemptsTest, CreationGivesUpOnAFailureRetryingDoesNotFix) {
  AttachAttempts attempts(strand, networkWith(10s, 1ms));
  attempts.beginCreation();
  EXPECT_FALSE(attempts.retryCreation(Status(errc::authentication, "bad token"), again));
  EXPECT_FALSE(attempts.retryCreation(Status(errc::not_found, "no such topic"), again));
  io.run();
  EXPECT_EQ(runs, 0);
}

TEST_F(AttachAttemptsTest, CreationGivesUpWhenTheNextStepEndsAfterTheOperationTimeout) {
  AttachAttempts attempts(strand, networkWith(50ms, 100ms));
  attempts.beginCreation();
  EXPECT_FALSE(attempts.retryCreation(Status(errc::unavailable, "broker starting"), again));
  io.run();
  EXPECT_EQ(runs, 0);
}

TEST_F(AttachAttemptsTest, RetryLaterBacksOffAndStartsOverAfterASuccess) {
  AttachAttempts attempts(strand, networkWith(10s, 1ms));
  EXPECT_EQ(attempts.retryLater(again), 1ms);
  EXPECT_EQ(attempts.retryLater(again), 2ms);  // replaces the first: one timer per handle
  EXPECT_EQ(attempts.retryLater(again, /*now=*/true), 0ms);
  io.run();
  EXPECT_EQ(runs, 1);
  attempts.succeeded();
  EXPECT_EQ(attempts.retryLater(again), 1ms);
  io.restart();
  io.run();
  EXPECT_EQ(runs, 2);
}

TEST_F(AttachAttemptsTest, CancelledRetryDoesNotRun) {
  AttachAttempts attempts(strand, networkWith(10s, 1ms));
  attempts.retryLater(again);
  attempts.cancel();
  io.run();
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace reconsume::detail::pulsar
