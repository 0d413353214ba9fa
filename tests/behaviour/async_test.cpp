// The async forms: callbacks, futures and coroutines, completing on the handler's executor.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <thread>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

namespace asio = boost::asio;

class Async : public BehaviourTest {
 protected:
  Consumer retrying(const std::string& topic) {
    return client().subscribe(
        retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms"))));
  }
};

TEST_P(Async, CallbackRunsOnTheHandlersExecutorNotInsideTheCall) {
  auto topic = uniqueTopic("callback");
  auto consumer = retrying(topic);
  client().createProducer(topic).send("payload");

  asio::io_context own;
  std::promise<std::pair<boost::system::error_code, Message>> got;
  std::thread::id ranOn;
  consumer.asyncReceive(asio::bind_executor(own, [&](boost::system::error_code ec, Message m) {
    ranOn = std::this_thread::get_id();
    got.set_value({ec, m});
  }));
  // The handler runs only when its executor runs, here on this thread.
  own.run_for(10s);
  auto future = got.get_future();
  ASSERT_EQ(future.wait_for(0s), std::future_status::ready);
  auto [ec, message] = future.get();
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(message.data(), "payload");
  EXPECT_TRUE(ranOn == std::this_thread::get_id());
}

TEST_P(Async, CoroutineReceivesReconsumesAndAcknowledges) {
  auto topic = uniqueTopic("coroutine");
  auto consumer = retrying(topic);
  client().createProducer(topic).send("payload");

  asio::io_context own;
  std::string retriedCount;
  auto future = asio::co_spawn(
      own,
      [&]() -> asio::awaitable<void> {
        auto message = co_await consumer.asyncReceive(asio::use_awaitable);
        co_await consumer.asyncReconsumeLater(message, asio::use_awaitable);
        if (embedded()) letPass(200ms);
        auto retried = co_await consumer.asyncReceive(asio::use_awaitable);
        retriedCount = retried.property("RECONSUMETIMES").value_or("");
        co_await consumer.asyncAcknowledge(retried, asio::use_awaitable);
      },
      asio::use_future);
  own.run_for(30s);
  ASSERT_EQ(future.wait_for(0s), std::future_status::ready);
  EXPECT_NO_THROW(future.get());
  EXPECT_EQ(retriedCount, "1");
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

TEST_P(Async, ErrorsReachTheHandler) {
  auto topic = uniqueTopic("async-errors");
  auto consumer = retrying(topic);
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);
  auto failed = consumer.asyncReconsumeLater(message, 7, asio::use_future);
  try {
    failed.get();
    FAIL() << "level 7 of a one-level table was accepted";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
  std::promise<boost::system::error_code> acked;
  consumer.asyncAcknowledge(message, [&](boost::system::error_code ec) { acked.set_value(ec); });
  auto ackResult = acked.get_future();
  ASSERT_EQ(ackResult.wait_for(10s), std::future_status::ready);
  EXPECT_FALSE(ackResult.get());
}

TEST_P(Async, ProducerSendsWithAFuture) {
  auto topic = uniqueTopic("async-send");
  auto producer = client().createProducer(topic);
  OutgoingMessage message;
  message.payload = "hello";
  auto id = producer.asyncSend(message, asio::use_future);
  ASSERT_EQ(id.wait_for(10s), std::future_status::ready);
  auto reader = client().createReader(topic);
  EXPECT_EQ(reader.readNext(kDueWithin)->id(), id.get());
}

INSTANTIATE_TEST_SUITE_P(Backends, Async, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
