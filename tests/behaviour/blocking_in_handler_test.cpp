// A blocking call made inside an async handler runs on the client's I/O thread and would wait for
// that very thread: it is refused at once with errc::would_deadlock, on every backend alike
// (embedded:// included, where it could otherwise complete inline and hide the bug). The async
// forms work from the same handler.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <functional>
#include <future>
#include <thread>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

namespace asio = boost::asio;

struct Refusal {
  std::string call;
  std::error_code code;
  std::string what;
};

class BlockingInHandler : public BehaviourTest {
 protected:
  Consumer retrying(const std::string& topic) {
    return client().subscribe(confirmedAcks(
        retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms")))));
  }
};

// Runs `call` and records how it failed (no code when it did not).
Refusal attempt(const std::string& name, const std::function<void()>& call) {
  try {
    call();
    return {name, {}, "returned"};
  } catch (const Error& e) {
    return {name, e.code(), e.what()};
  }
}

TEST_P(BlockingInHandler, EveryBlockingCallIsRefusedAtOnce) {
  auto topic = uniqueTopic("blocking-in-handler");
  auto consumer = retrying(topic);
  auto producer = client().createProducer(topic);
  auto reader = client().createReader(topic);
  producer.send("payload");

  std::promise<std::vector<Refusal>> refused;
  std::thread::id handlerThread;
  Message received;
  consumer.asyncReceive([&](boost::system::error_code ec, Message message) {
    handlerThread = std::this_thread::get_id();
    received = message;
    std::vector<Refusal> results;
    if (ec) return refused.set_value(results);
    auto c = client();
    auto options = retryOptions(topic, "other", RetryPolicy::levels(DelayLevels::parse("1s")));
    results.push_back(attempt("Consumer::receive", [&] { consumer.receive(); }));
    results.push_back(attempt("Consumer::receive", [&] { consumer.receive(1ms); }));
    results.push_back(attempt("Consumer::acknowledge", [&] { consumer.acknowledge(message); }));
    results.push_back(
        attempt("Consumer::reconsumeLater", [&] { consumer.reconsumeLater(message); }));
    results.push_back(
        attempt("Consumer::deadLetter", [&] { consumer.deadLetter(message, "from a handler"); }));
    results.push_back(attempt("Producer::send", [&] { producer.send("more"); }));
    results.push_back(attempt("Reader::readNext", [&] { reader.readNext(1ms); }));
    results.push_back(
        attempt("Reader::hasMessageAvailable", [&] { reader.hasMessageAvailable(); }));
    results.push_back(attempt("Client::createProducer", [&] { c.createProducer(topic); }));
    results.push_back(attempt("Client::subscribe", [&] { c.subscribe(options); }));
    results.push_back(attempt("Consumer::close", [&] { consumer.close(); }));
    results.push_back(attempt("Producer::close", [&] { producer.close(); }));
    results.push_back(attempt("Client::close", [&] { c.close(); }));
    refused.set_value(std::move(results));
  });

  // A generous bound: a regression fails here instead of hanging the suite.
  auto future = refused.get_future();
  ASSERT_TRUE(waitOrClose(future)) << "a blocking call hung";
  EXPECT_NE(handlerThread, std::this_thread::get_id());
  auto results = future.get();
  ASSERT_EQ(results.size(), 13u);
  for (const auto& result : results) {
    EXPECT_EQ(result.code, errc::would_deadlock) << result.call << ": " << result.what;
    EXPECT_TRUE(result.what.starts_with(result.call + " called on the client's I/O thread"))
        << result.what;
  }
  EXPECT_NE(results[2].what.find("use asyncAcknowledge"), std::string::npos) << results[2].what;

  // Nothing was started: the message is still unacknowledged, everything still open, and the
  // same calls work from this thread.
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  producer.send("after");
  consumer.acknowledge(received);
  EXPECT_EQ(receiveNow(consumer).data(), "after");
  consumer.close();
}

TEST_P(BlockingInHandler, AsyncFormsWorkFromTheHandler) {
  auto topic = uniqueTopic("async-in-handler");
  auto consumer = retrying(topic);
  auto producer = client().createProducer(topic);
  producer.send("first");

  // The retry is due 200 ms after the reconsume, which is after this (on Pulsar, time is real).
  auto before = now();
  // A coroutine on the client's own executor: every step runs on its I/O thread.
  auto done = asio::co_spawn(
      client().executor(),
      [&]() -> asio::awaitable<std::string> {
        auto first = co_await consumer.asyncReceive(asio::use_awaitable);
        co_await consumer.asyncAcknowledge(first, asio::use_awaitable);
        OutgoingMessage second;
        second.payload = "second";
        co_await producer.asyncSend(second, asio::use_awaitable);
        auto next = co_await consumer.asyncReceive(asio::use_awaitable);
        co_await consumer.asyncReconsumeLater(next, asio::use_awaitable);
        co_return std::string(next.data());
      },
      asio::use_future);
  ASSERT_TRUE(waitOrClose(done));
  EXPECT_EQ(done.get(), "second");
  auto retried = receiveAt(consumer, before + 200ms);
  EXPECT_EQ(retried.data(), "second");
  EXPECT_EQ(retried.property("RECONSUMETIMES"), "1");
  consumer.acknowledge(retried);
}

TEST_P(BlockingInHandler, AHandlerOnYourOwnExecutorMayBlock) {
  auto topic = uniqueTopic("own-executor");
  auto consumer = retrying(topic);
  client().createProducer(topic).send("payload");

  // The handler runs on a thread of the application, not the client's: blocking there is fine.
  asio::io_context own;
  std::optional<Refusal> outcome;
  consumer.asyncReceive(asio::bind_executor(own, [&](boost::system::error_code ec, Message m) {
    ASSERT_FALSE(ec) << ec.message();
    outcome = attempt("Consumer::acknowledge", [&] { consumer.acknowledge(m); });
  }));
  ASSERT_TRUE(runUntil(own, [&] { return outcome.has_value(); }));
  EXPECT_FALSE(outcome->code) << outcome->what;
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, BlockingInHandler, ::testing::ValuesIn(serviceUrls()),
                         backendName);

}  // namespace
}  // namespace reconsume::behaviour
