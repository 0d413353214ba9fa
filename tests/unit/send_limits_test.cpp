// The accounting of room for pending sends (client/send_limits.hpp), without sockets: messages
// and bytes per producer, the client's memoryLimit shared by its producers, failing at once or
// waiting (bounded by a ManualSteadyClock), never waiting on the I/O thread, and closing.
#include "client/send_limits.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <thread>
#include <vector>

#include "common/outgoing_data.hpp"

namespace reconsume::detail::client {
namespace {

using namespace std::chrono_literals;

bool mentions(const Status& status, const std::string& text) {
  return status.message.find(text) != std::string::npos;
}

class SendLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ioThread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    work_.reset();
    io_.stop();
    ioThread_.join();
  }

  std::shared_ptr<ClientSendLimits> client(std::size_t memoryLimit) {
    return std::make_shared<ClientSendLimits>(memoryLimit, io_, clock_);
  }
  static ProducerSendLimit::Settings settings(std::size_t maxMessages, std::size_t maxBytes,
                                              bool block) {
    ProducerSendLimit::Settings s;
    s.producer = "producer of persistent://public/default/t";
    s.maxMessages = maxMessages;
    s.maxBytes = maxBytes;
    s.block = block;
    s.maxWait = 30s;
    s.maxWaitName = "sendTimeout";
    return s;
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::thread ioThread_;
  std::shared_ptr<ManualSteadyClock> clock_ = std::make_shared<ManualSteadyClock>();
};

TEST(PendingBytes, CountPayloadKeysAndProperties) {
  OutgoingMessage message;
  message.payload = "12345";
  message.key = "k1";
  message.orderingKey = "o";
  message.properties = {{"ab", "cde"}};
  EXPECT_EQ(detail::OutgoingData(message).contentBytes(), 5u + 2u + 1u + 5u);
}

TEST_F(SendLimitsTest, CountsMessagesAndBytesAndGivesThemBack) {
  auto shared = client(1000);
  ProducerSendLimit limit(shared, settings(10, 0, false));
  ASSERT_TRUE(limit.acquire(100).ok());
  ASSERT_TRUE(limit.acquire(50).ok());
  EXPECT_EQ(limit.pendingMessages(), 2u);
  EXPECT_EQ(limit.pendingBytes(), 150u);
  EXPECT_EQ(shared->bytesInUse(), 150u);
  limit.release(100);
  EXPECT_EQ(limit.pendingMessages(), 1u);
  EXPECT_EQ(shared->bytesInUse(), 50u);
}

// Many senders at once, two producers sharing the client's memory limit: blocking sends wait for
// room and never hold more than the limits admit, however they race (the counts are taken without
// a lock and given back when over).
TEST_F(SendLimitsTest, RacingSendersNeverHoldMoreThanTheLimits) {
  auto shared = client(500);
  ProducerSendLimit first(shared, settings(3, 0, true)), second(shared, settings(4, 0, true));
  std::atomic<int> heldFirst{0}, heldSecond{0}, heldBytes{0}, overLimit{0};
  auto sender = [&](ProducerSendLimit& limit, std::atomic<int>& held, int max) {
    for (int i = 0; i < 2000; ++i) {
      const std::size_t bytes = 100 + static_cast<std::size_t>(i % 3) * 50;
      ASSERT_TRUE(limit.acquire(bytes).ok());
      if (++held > max) ++overLimit;
      if ((heldBytes += static_cast<int>(bytes)) > 500) ++overLimit;
      heldBytes -= static_cast<int>(bytes);
      --held;
      limit.release(bytes);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] { sender(first, heldFirst, 3); });
    threads.emplace_back([&] { sender(second, heldSecond, 4); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(overLimit.load(), 0);
  EXPECT_EQ(first.pendingMessages() + second.pendingMessages(), 0u);
  EXPECT_EQ(shared->bytesInUse(), 0u);
}

TEST_F(SendLimitsTest, FullQueueFailsAtOnceNamingMaxPendingMessages) {
  ProducerSendLimit limit(client(0), settings(2, 0, false));
  ASSERT_TRUE(limit.acquire(1).ok());
  ASSERT_TRUE(limit.acquire(1).ok());
  auto busy = limit.acquire(1);
  EXPECT_EQ(busy.code, errc::producer_busy);
  EXPECT_TRUE(mentions(busy, "2 messages pending (maxPendingMessages 2)")) << busy.message;
  EXPECT_TRUE(mentions(busy, "blockIfQueueFull is off")) << busy.message;
  EXPECT_TRUE(mentions(busy, "persistent://public/default/t")) << busy.message;
  limit.release(1);
  EXPECT_TRUE(limit.acquire(1).ok()) << "room again after a receipt";
}

TEST_F(SendLimitsTest, ProducerBytesAreBoundedByMaxPendingBytes) {
  ProducerSendLimit limit(client(0), settings(100, 300, false));
  ASSERT_TRUE(limit.acquire(200).ok());
  auto busy = limit.acquire(101);
  EXPECT_EQ(busy.code, errc::producer_busy);
  EXPECT_TRUE(mentions(busy, "200 bytes pending and the message 101 (maxPendingBytes 300)"))
      << busy.message;
  EXPECT_TRUE(limit.acquire(100).ok()) << "exactly the limit fits";
}

TEST_F(SendLimitsTest, MemoryLimitIsSharedByTheClientsProducers) {
  auto shared = client(1000);
  ProducerSendLimit first(shared, settings(100, 0, false));
  ProducerSendLimit retry(shared, settings(100, 0, false));
  ASSERT_TRUE(first.acquire(900).ok());
  auto busy = retry.acquire(200);
  EXPECT_EQ(busy.code, errc::producer_busy);
  EXPECT_TRUE(mentions(busy,
                       "the client's producers have 900 bytes pending and the message 200 "
                       "(memoryLimit 1000)"))
      << busy.message;
  first.release(900);
  EXPECT_TRUE(retry.acquire(200).ok());
}

TEST_F(SendLimitsTest, AMessageLargerThanALimitIsTooLargeNotBusy) {
  ProducerSendLimit limit(client(1000), settings(100, 0, true));
  auto tooLarge = limit.acquire(1001);
  EXPECT_EQ(tooLarge.code, errc::too_large);
  EXPECT_TRUE(mentions(tooLarge, "1001 bytes")) << tooLarge.message;
  EXPECT_TRUE(mentions(tooLarge, "memoryLimit 1000")) << tooLarge.message;
  ProducerSendLimit small(client(0), settings(100, 10, true));
  EXPECT_TRUE(mentions(small.acquire(11), "maxPendingBytes 10"));
}

TEST_F(SendLimitsTest, ABlockingSendWaitsForRoom) {
  ProducerSendLimit limit(client(0), settings(1, 0, true));
  ASSERT_TRUE(limit.acquire(1).ok());
  auto waiting = std::async(std::launch::async, [&] { return limit.acquire(1); });
  // The waiting send armed its timer: it is waiting now.
  ASSERT_TRUE(clock_->waitForPendingWaits(1, 10s));
  EXPECT_EQ(waiting.wait_for(0s), std::future_status::timeout);
  limit.release(1);
  auto status = waiting.get();
  EXPECT_TRUE(status.ok()) << status.message;
  EXPECT_EQ(limit.pendingMessages(), 1u);
}

TEST_F(SendLimitsTest, ABlockingSendGivesUpAfterMaxWaitNamingTheLimit) {
  ProducerSendLimit limit(client(0), settings(1, 0, true));
  ASSERT_TRUE(limit.acquire(1).ok());
  auto waiting = std::async(std::launch::async, [&] { return limit.acquire(1); });
  ASSERT_TRUE(clock_->waitForPendingWaits(1, 10s));
  clock_->advance(29s);
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout) << "not before sendTimeout";
  clock_->advance(1s);
  auto status = waiting.get();
  EXPECT_EQ(status.code, errc::timeout);
  EXPECT_TRUE(mentions(status, "no room within 30000 ms (sendTimeout)")) << status.message;
  EXPECT_TRUE(mentions(status, "maxPendingMessages 1")) << status.message;
  EXPECT_EQ(limit.pendingMessages(), 1u) << "the refused send took nothing";
}

TEST_F(SendLimitsTest, OnTheIoThreadASendNeverWaits) {
  ProducerSendLimit limit(client(0), settings(1, 0, true));
  ASSERT_TRUE(limit.acquire(1).ok());
  std::promise<Status> result;
  boost::asio::post(io_, [&] { result.set_value(limit.acquire(1)); });
  auto status = result.get_future().get();
  EXPECT_EQ(status.code, errc::producer_busy);
  EXPECT_TRUE(mentions(status, "I/O thread")) << status.message;
  EXPECT_TRUE(mentions(status, "maxPendingMessages 1")) << status.message;
}

TEST_F(SendLimitsTest, ClosingWakesWaitingSends) {
  auto shared = client(10);
  ProducerSendLimit producer(shared, settings(0, 0, true));
  ProducerSendLimit other(shared, settings(0, 0, true));
  ASSERT_TRUE(producer.acquire(10).ok());
  auto waiting = std::async(std::launch::async, [&] { return producer.acquire(5); });
  auto waitingOther = std::async(std::launch::async, [&] { return other.acquire(5); });
  ASSERT_TRUE(clock_->waitForPendingWaits(2, 10s));
  producer.close(Status(errc::closed, "producer closed"));
  EXPECT_EQ(waiting.get().code, errc::closed);
  EXPECT_EQ(waitingOther.wait_for(50ms), std::future_status::timeout) << "its own producer is open";
  shared->close(Status(errc::closed, "client closed"));
  EXPECT_EQ(waitingOther.get().code, errc::closed);
  EXPECT_EQ(other.acquire(1).code, errc::closed) << "later sends fail at once";
}

}  // namespace
}  // namespace reconsume::detail::client
