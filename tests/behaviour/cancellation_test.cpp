// Asio per-operation cancellation of asyncReceive, and asyncReceive with a timeout: a cancelled or
// timed-out receive takes no message — one that arrived meanwhile is left for the next receive.
// Races many cancellations against arrivals and counts: every message received exactly once.
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <map>
#include <random>
#include <thread>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

class Cancellation : public BehaviourTest {
 protected:
  Consumer plain(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "sub";
    return client().subscribe(options);
  }

  // Sends "m0" … "m<count-1>" from a thread of its own once `go` is ready (the receiver missed
  // once: cancellations are certain to have happened).
  std::thread sendInBackground(const std::string& topic, int count, std::shared_future<void> go) {
    auto producer = client().createProducer(topic);
    return std::thread([producer, count, go]() mutable {
      if (go.wait_for(60s) != std::future_status::ready) return;
      try {
        for (int i = 0; i < count; ++i) producer.send("m" + std::to_string(i));
      } catch (const Error&) {
        // The client was closed under it: the test failed already (runUntil).
      }
    });
  }

  // Every payload was received exactly once, and nothing more is waiting.
  void expectEachOnce(Consumer& consumer, const std::map<std::string, int>& seen, int count) {
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(count));
    for (const auto& [payload, times] : seen) EXPECT_EQ(times, 1) << payload;
    expectNothing(consumer);
  }
};

TEST_P(Cancellation, ACancelledReceiveEndsAtOnceAndTakesNothing) {
  auto topic = uniqueTopic("cancel-before");
  auto consumer = plain(topic);

  asio::cancellation_signal signal;
  std::promise<boost::system::error_code> ended;
  consumer.asyncReceive(asio::bind_cancellation_slot(
      signal.slot(), [&](boost::system::error_code ec, Message) { ended.set_value(ec); }));
  // A cancellation signal is not thread-safe: emitted where the handler runs, as Asio requires.
  asio::post(client().executor(), [&] { signal.emit(asio::cancellation_type::terminal); });
  auto future = ended.get_future();
  ASSERT_TRUE(waitOrClose(future));
  EXPECT_EQ(future.get(), asio::error::operation_aborted);

  client().createProducer(topic).send("after");
  EXPECT_EQ(receiveNow(consumer).data(), "after");
}

TEST_P(Cancellation, ACancelledReadOfAReaderTakesNothing) {
  auto topic = uniqueTopic("cancel-read");
  auto producer = client().createProducer(topic);
  auto reader = client().createReader(topic);

  asio::cancellation_signal signal;
  std::promise<boost::system::error_code> ended;
  reader.asyncReadNext(asio::bind_cancellation_slot(
      signal.slot(), [&](boost::system::error_code ec, Message) { ended.set_value(ec); }));
  asio::post(client().executor(), [&] { signal.emit(asio::cancellation_type::total); });
  auto future = ended.get_future();
  ASSERT_TRUE(waitOrClose(future));
  EXPECT_EQ(future.get(), asio::error::operation_aborted);

  producer.send("after");
  auto next = reader.readNext(kDueWithin);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->data(), "after");
}

TEST_P(Cancellation, TheTimerWinsAndTheMessageWaitsForTheNextReceive) {
  auto topic = uniqueTopic("cancel-or");
  auto consumer = plain(topic);
  auto producer = client().createProducer(topic);

  asio::io_context own;
  auto done = asio::co_spawn(
      own,
      [&]() -> asio::awaitable<std::string> {
        asio::steady_timer timer(own, 20ms);
        auto first = co_await (consumer.asyncReceive(asio::use_awaitable) ||
                               timer.async_wait(asio::use_awaitable));
        if (first.index() != 1) co_return "the receive won on an empty topic";
        producer.send("later");
        auto message = co_await consumer.asyncReceive(asio::use_awaitable);
        co_return std::string(message.data());
      },
      asio::use_future);
  ASSERT_TRUE(runUntilReady(own, done));
  EXPECT_EQ(done.get(), "later");
  expectNothing(consumer);
}

TEST_P(Cancellation, ManyCancellationsRacingArrivalsLoseNothing) {
  constexpr int count = 300;
  auto topic = uniqueTopic("cancel-race");
  auto consumer = plain(topic);

  asio::io_context own;
  std::map<std::string, int> seen;
  std::promise<void> missed;
  int cancelled = 0;
  auto done = asio::co_spawn(
      own,
      [&]() -> asio::awaitable<void> {
        std::minstd_rand random(12345);
        while (static_cast<int>(seen.size()) < count) {
          // From "already expired" to a little longer than an arrival takes.
          asio::steady_timer timer(own, std::chrono::microseconds(random() % 300));
          auto got = co_await (consumer.asyncReceive(asio::use_awaitable) ||
                               timer.async_wait(asio::use_awaitable));
          if (got.index() == 1) {
            if (++cancelled == 1) missed.set_value();
            continue;
          }
          auto message = std::get<0>(got);
          ++seen[std::string(message.data())];
          co_await consumer.asyncAcknowledge(message, asio::use_awaitable);
        }
      },
      asio::use_future);
  auto sender = sendInBackground(topic, count, missed.get_future().share());
  bool finished = runUntilReady(own, done, 120s);
  sender.join();
  ASSERT_TRUE(finished) << "received " << seen.size() << " of " << count << " (" << cancelled
                        << " cancelled)";
  done.get();
  EXPECT_GT(cancelled, 0);
  expectEachOnce(consumer, seen, count);
}

TEST_P(Cancellation, AsyncReceiveWithATimeoutCompletesWithNothing) {
  auto topic = uniqueTopic("receive-timeout");
  auto consumer = plain(topic);

  auto nothing = consumer.asyncReceive(50ms, asio::use_future);
  ASSERT_EQ(nothing.wait_for(30s), std::future_status::ready);
  EXPECT_FALSE(nothing.get().has_value());

  client().createProducer(topic).send("payload");
  auto something = consumer.asyncReceive(kDueWithin, asio::use_future);
  ASSERT_EQ(something.wait_for(kDueWithin + 10s), std::future_status::ready);
  auto message = something.get();
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(message->data(), "payload");
}

TEST_P(Cancellation, TimeoutsRacingArrivalsLoseNothing) {
  constexpr int count = 300;
  auto topic = uniqueTopic("timeout-race");
  auto consumer = plain(topic);

  asio::io_context own;
  std::map<std::string, int> seen;
  std::promise<void> missed;
  int timedOut = 0;
  auto done = asio::co_spawn(
      own,
      [&]() -> asio::awaitable<void> {
        std::minstd_rand random(54321);
        while (static_cast<int>(seen.size()) < count) {
          auto timeout = std::chrono::milliseconds(random() % 2);
          auto got = co_await consumer.asyncReceive(timeout, asio::use_awaitable);
          if (!got) {
            if (++timedOut == 1) missed.set_value();
            continue;
          }
          ++seen[std::string(got->data())];
          co_await consumer.asyncAcknowledge(*got, asio::use_awaitable);
        }
      },
      asio::use_future);
  auto sender = sendInBackground(topic, count, missed.get_future().share());
  bool finished = runUntilReady(own, done, 120s);
  sender.join();
  ASSERT_TRUE(finished) << "received " << seen.size() << " of " << count << " (" << timedOut
                        << " timed out)";
  done.get();
  EXPECT_GT(timedOut, 0);
  expectEachOnce(consumer, seen, count);
}

INSTANTIATE_TEST_SUITE_P(Backends, Cancellation, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
