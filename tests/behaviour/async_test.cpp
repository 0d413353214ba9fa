// The async forms: callbacks, futures and coroutines, completing on the handler's executor.
#include <algorithm>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>
#include <variant>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

namespace asio = boost::asio;

OutgoingMessage withPayload(std::string payload) {
  OutgoingMessage message;
  message.payload = std::move(payload);
  return message;
}

class Async : public BehaviourTest {
 protected:
  // Waits for the future of an operation that must complete, with its outcome or with
  // errc::closed: the outcome, or nothing when closed. A handler that never ran (no answer within
  // kDueWithin, a broken promise) or another error fails the test.
  template <typename T>
  static auto outcomeOrClosed(std::future<T>& future) {
    using Value = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
    std::optional<Value> outcome;
    if (future.wait_for(kDueWithin) != std::future_status::ready) {
      ADD_FAILURE() << "a handler never ran";
      return outcome;
    }
    try {
      if constexpr (std::is_void_v<T>) {
        future.get();
        outcome.emplace();
      } else {
        outcome = future.get();
      }
    } catch (const boost::system::system_error& e) {
      EXPECT_EQ(e.code(), errc::closed) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an outcome of the library: " << e.what();
    }
    return outcome;
  }

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
  auto future = got.get_future();
  ASSERT_TRUE(runUntilReady(own, future));
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
  ASSERT_TRUE(runUntilReady(own, future));
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
  ASSERT_TRUE(waitOrClose(ackResult));
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

// A send still waiting for its batch or its receipt when the application drops its producer
// without close(): its handler runs, once — stored, or closed — never a handler destroyed
// unanswered (a future whose promise broke).
TEST_P(Async, ASendPendingWhenItsProducerIsDroppedWithoutCloseIsAnswered) {
  auto topic = uniqueTopic("async-dropped");
  std::vector<std::future<MessageId>> sent;
  {
    ProducerOptions options;
    options.topic = topic;
    options.sendTimeout = 0ms;  // no send timer holding the producer either
    auto producer = client().createProducer(options);
    for (int i = 0; i < 3; ++i) {
      sent.push_back(producer.asyncSend(withPayload("m" + std::to_string(i)), asio::use_future));
    }
  }
  for (auto& each : sent) outcomeOrClosed(each);
}

// The same after an earlier send completed, which leaves the producer's send timer armed: the
// producer does not live on for its timer to publish the batch later; the send completes with
// closed, at once, as the header promises. (On embedded:// a send completes inline, stored: none
// is left waiting for a batch.)
TEST_P(Async, ASendWaitingForItsBatchIsClosedWhenItsProducerIsDroppedAfterEarlierSends) {
  if (embedded()) GTEST_SKIP() << "embedded:// sends complete inline: none waits for a batch";
  auto topic = uniqueTopic("async-dropped-later");
  std::future<MessageId> pending;
  {
    ProducerOptions options;
    options.topic = topic;
    options.batching.maxMessages = 2;  // the first batch goes out full, not after the delay
    options.batching.maxPublishDelay = std::chrono::minutes(10);
    options.sendTimeout = std::chrono::minutes(10);
    auto producer = client().createProducer(options);
    auto first = producer.asyncSend(withPayload("a"), asio::use_future);
    auto second = producer.asyncSend(withPayload("b"), asio::use_future);
    ASSERT_EQ(second.wait_for(10s), std::future_status::ready);
    second.get();
    pending = producer.asyncSend(withPayload("c"), asio::use_future);  // waits for its batch
  }
  ASSERT_EQ(pending.wait_for(10s), std::future_status::ready)
      << "the dropped producer lives on, holding the send for its batch";
  try {
    pending.get();
    FAIL() << "sent by a producer the application had dropped";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  }
}

// A receive still waiting when the application drops its consumer (or reader) without close():
// it completes, with closed — the consumer does not live on for it, unreachable.
TEST_P(Async, AReceiveWaitingWhenItsConsumerIsDroppedWithoutCloseIsAnswered) {
  auto topic = uniqueTopic("receive-dropped");
  std::future<Message> received;
  std::future<Message> read;
  {
    auto consumer = retrying(topic);
    received = consumer.asyncReceive(asio::use_future);
    auto reader = client().createReader(topic);
    read = reader.asyncReadNext(asio::use_future);
  }
  for (auto* each : {&received, &read}) {
    EXPECT_FALSE(outcomeOrClosed(*each)) << "a message arrived on a topic nobody published to";
  }
}

// The client's last handle dropped without close() while its operations are on their way — sends
// in their batch or waiting for a receipt, acknowledgements in their group, completions queued —
// is a close: every handler runs once, and nothing a handler was told is stored is lost.
TEST_P(Async, OperationsPendingWhenTheClientIsDroppedWithoutCloseAreAnswered) {
  auto topic = uniqueTopic("client-dropped");
  constexpr int kSends = 300;
  std::vector<std::future<MessageId>> sent;
  std::vector<std::future<void>> acked;
  {
    auto other = connectAnotherClient();
    auto consumer =
        other.subscribe(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1s"))));
    auto producer = other.createProducer(topic);
    producer.send("to acknowledge");
    acked.push_back(consumer.asyncAcknowledge(receiveNow(consumer), asio::use_future));
    for (int i = 0; i < kSends; ++i) {
      sent.push_back(producer.asyncSend(withPayload("m" + std::to_string(i)), asio::use_future));
    }
  }  // the handles go, the client's own among them
  std::set<MessageId> stored;
  for (auto& each : sent) {
    if (auto id = outcomeOrClosed(each)) stored.insert(*id);
  }
  for (auto& each : acked) outcomeOrClosed(each);
  auto reader = client().createReader(topic);
  std::set<MessageId> read;
  while (auto message = reader.readNext(embedded() ? 0ms : 2s)) read.insert(message->id());
  for (const auto& id : stored) EXPECT_EQ(read.count(id), 1u) << "stored, then lost";
}

// Completions of a burst run together on the client's I/O thread (client/completion_inbox.hpp):
// still in the order the operations finished, never on the caller's thread, and never inside the
// call that started the operation — not even one started from a handler already on that thread.
TEST_P(Async, ABurstOfSendsCompletesInOrderOnTheClientsThreadNeverInsideTheCall) {
  auto topic = uniqueTopic("async-burst");
  auto producer = client().createProducer(topic);
  constexpr int kSends = 200;
  std::mutex mutex;
  std::vector<MessageId> completed;
  std::set<std::thread::id> threads;
  std::promise<void> allDone;
  std::vector<MessageId> sentIds(kSends);
  for (int i = 0; i < kSends; ++i) {
    producer.asyncSend(withPayload("m" + std::to_string(i)),
                       [&, i](boost::system::error_code ec, MessageId id) {
                         EXPECT_FALSE(ec) << ec.message();
                         std::lock_guard lock(mutex);
                         sentIds[static_cast<std::size_t>(i)] = id;
                         completed.push_back(id);
                         threads.insert(std::this_thread::get_id());
                         if (completed.size() == kSends) allDone.set_value();
                       });
  }
  auto all = allDone.get_future();
  ASSERT_TRUE(waitOrClose(all)) << completed.size() << " of " << kSends << " sends completed";
  std::lock_guard lock(mutex);
  EXPECT_EQ(completed, sentIds);  // the i-th completion is the i-th send's
  EXPECT_TRUE(std::is_sorted(completed.begin(), completed.end()));
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);

  std::promise<bool> ranInsideTheCall;
  std::promise<void> innerRan;
  producer.asyncSend(withPayload("outer"), [&](boost::system::error_code, MessageId) {
    auto ran = std::make_shared<std::atomic<bool>>(false);
    producer.asyncSend(withPayload("inner"),
                       [ran, &innerRan](boost::system::error_code, MessageId) {
                         ran->store(true);
                         innerRan.set_value();
                       });
    ranInsideTheCall.set_value(ran->load());
  });
  auto inside = ranInsideTheCall.get_future();
  ASSERT_TRUE(waitOrClose(inside));
  EXPECT_FALSE(inside.get()) << "the inner handler ran inside asyncSend";
  auto inner = innerRan.get_future();
  EXPECT_TRUE(waitOrClose(inner));
}

TEST_P(Async, AcknowledgementsAndSendsCompleteOnAHandlersOwnExecutor) {
  auto topic = uniqueTopic("async-own");
  auto consumer = retrying(topic);
  auto producer = client().createProducer(topic);
  asio::io_context own;
  std::thread::id sentOn, ackedOn;
  producer.asyncSend(withPayload("payload"),
                     asio::bind_executor(own, [&](boost::system::error_code ec, MessageId) {
                       EXPECT_FALSE(ec) << ec.message();
                       sentOn = std::this_thread::get_id();
                     }));
  ASSERT_TRUE(runUntil(own, [&] { return sentOn != std::thread::id(); }));
  auto message = receiveNow(consumer);
  consumer.asyncAcknowledge(message, asio::bind_executor(own, [&](boost::system::error_code ec) {
                              EXPECT_FALSE(ec) << ec.message();
                              ackedOn = std::this_thread::get_id();
                            }));
  ASSERT_TRUE(runUntil(own, [&] { return ackedOn != std::thread::id(); }));
  EXPECT_TRUE(sentOn == std::this_thread::get_id());
  EXPECT_TRUE(ackedOn == std::this_thread::get_id());
}

INSTANTIATE_TEST_SUITE_P(Backends, Async, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
