// Room for pending sends on every backend (SPEC.md section 6): a message that can never fit a
// byte limit (the client's memoryLimit, a producer's maxPendingBytes) fails at once with
// too_large naming the limit, on send and asyncSend, for the application's producers and for the
// retry layer's; the limits of a full queue are tested in tests/unit/send_limits_test.cpp and
// against a paused broker by reconsume_integration_load.
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class SendLimits : public BehaviourTest {};

// The warnings a client logs (its logger runs on any thread), with a memory limit that a payload
// of 1,001 bytes can never fit: each such send fails at once.
struct LoggedWarnings {
  std::mutex mutex;
  std::vector<std::string> lines;

  ClientOptions clientOptions() {
    ClientOptions options;
    options.memoryLimit = 1000;
    options.logger = [this](LogLevel level, std::string_view message) {
      std::lock_guard lock(mutex);
      if (level == LogLevel::warn) lines.emplace_back(message);
    };
    return options;
  }
};

void expectTooLarge(const std::function<void()>& call, const std::string& limit) {
  try {
    call();
    FAIL() << "no error; expected too_large naming " << limit;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
    EXPECT_NE(std::string(e.what()).find(limit), std::string::npos) << e.what();
  }
}

TEST_P(SendLimits, AMessageLargerThanTheMemoryLimitIsTooLarge) {
  ClientOptions options;
  options.memoryLimit = 1000;
  auto client = connectAnotherClient(options);
  auto topic = uniqueTopic("memory-limit");
  auto producer = client.createProducer(topic);
  expectTooLarge([&] { producer.send(std::string(1001, 'x')); }, "memoryLimit 1000");
  OutgoingMessage big;
  big.payload = std::string(1001, 'x');
  std::promise<boost::system::error_code> failed;
  producer.asyncSend(big, [&](boost::system::error_code ec, MessageId) { failed.set_value(ec); });
  EXPECT_EQ(failed.get_future().get(), errc::too_large);
  EXPECT_NO_THROW(producer.send(std::string(1000, 'x'))) << "exactly the limit fits";
  client.close();
}

TEST_P(SendLimits, AMessageLargerThanMaxPendingBytesIsTooLarge) {
  ProducerOptions options;
  options.topic = uniqueTopic("pending-bytes");
  options.maxPendingBytes = 100;
  auto producer = client().createProducer(options);
  OutgoingMessage message;
  message.payload = std::string(90, 'x');
  message.properties = {{"key", "12345678"}};  // 90 + 3 + 8 = 101 bytes
  expectTooLarge([&] { producer.send(message); }, "maxPendingBytes 100");
  message.properties = {{"key", "1234567"}};
  EXPECT_NO_THROW(producer.send(message));
}

TEST_P(SendLimits, TheRetryProducerSharesTheClientsMemoryLimit) {
  ClientOptions clientOptions;
  clientOptions.memoryLimit = 2000;
  auto client = connectAnotherClient(clientOptions);
  auto topic = uniqueTopic("retry-limit");
  auto consumer = client.subscribe(retryOptions(topic, "sub", RetryPolicy::exponential({})));
  // Fits alone; with the retry layer's properties it no longer fits the limit.
  client.createProducer(topic).send(std::string(1990, 'x'));
  auto message = receiveNow(consumer);
  expectTooLarge([&] { consumer.reconsumeLater(message); }, "memoryLimit 2000");
  client.close();
}

// A burst of first retries, more than the client's memory limit holds at once, made while the
// consumer creates its retry producer: each waits for the producer on its caller's thread and
// then for room there, as later retries do — none fails with producer_busy (queued for the
// client's I/O thread, where nothing may wait, those beyond the room did, on Pulsar).
TEST_P(SendLimits, TheFirstRetriesWaitForRoomAsTheLaterOnesDo) {
  ClientOptions clientOptions;
  clientOptions.memoryLimit = 64 * 1024;
  auto client = connectAnotherClient(clientOptions);
  auto topic = uniqueTopic("retry-room");
  auto consumer =
      client.subscribe(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1h"))));
  constexpr int kCount = 40;  // about 4 KiB each with its properties: 14 fit the limit at a time
  auto producer = client.createProducer(topic);
  for (int i = 0; i < kCount; ++i)
    producer.send(std::string(4000, static_cast<char>('a' + i % 26)));
  std::vector<Message> received;
  for (int i = 0; i < kCount; ++i) received.push_back(receiveNow(consumer));
  std::vector<std::future<void>> retried;
  for (auto& message : received) {
    retried.push_back(consumer.asyncReconsumeLater(message, boost::asio::use_future));
  }
  int failed = 0;
  std::string first;
  for (auto& each : retried) {
    try {
      each.get();
    } catch (const std::exception& e) {
      if (failed++ == 0) first = e.what();
    }
  }
  EXPECT_EQ(failed, 0) << "the first failure: " << first;
  client.close();
}

// A failed asyncSend's text reaches the application only through the log. Failures of one event
// (here two hundred sends refused inside one handler; on a broker, a send timeout or a lost
// connection failing a window of them) are one warning with the first one's text and one line
// counting the others (common/failure_log.hpp), not a warning each.
TEST_P(SendLimits, ABurstOfFailedAsyncSendsIsOneWarningAndACount) {
  LoggedWarnings logged;
  auto client = connectAnotherClient(logged.clientOptions());
  auto producer = client.createProducer(uniqueTopic("failure-burst"));
  constexpr int kSends = 200;
  std::promise<int> allFailed;
  int failed = 0;  // counted on the client's one I/O thread
  boost::asio::post(client.executor(), [&] {
    for (int i = 0; i < kSends; ++i) {
      OutgoingMessage big;
      big.payload = std::string(1001, 'x');
      producer.asyncSend(big, [&](boost::system::error_code ec, MessageId) {
        EXPECT_EQ(ec, errc::too_large);
        if (++failed == kSends) allFailed.set_value(failed);
      });
    }
  });
  EXPECT_EQ(allFailed.get_future().get(), kSends);
  client.close();  // tells a summary still pending
  std::lock_guard lock(logged.mutex);
  const auto& warnings = logged.lines;
  ASSERT_EQ(warnings.size(), 2u) << ::testing::PrintToString(warnings);
  EXPECT_TRUE(warnings[0].starts_with("asyncSend: ")) << warnings[0];
  EXPECT_NE(warnings[0].find("memoryLimit 1000"), std::string::npos) << warnings[0];
  EXPECT_EQ(warnings[1], "asyncSend: 199 more failed (message too large) since the warning above");
}

// Two producers failing alike in one burst: each one's first failure is a warning of its own, so
// that both topics show, and the summary counts the rest and says they came from two producers.
TEST_P(SendLimits, ABurstOfFailuresFromTwoProducersWarnsForEachAndCountsTheRest) {
  LoggedWarnings logged;
  auto client = connectAnotherClient(logged.clientOptions());
  const auto orders = uniqueTopic("failure-burst-orders");
  const auto payments = uniqueTopic("failure-burst-payments");
  auto ordersProducer = client.createProducer(orders);
  auto paymentsProducer = client.createProducer(payments);
  constexpr int kSendsEach = 100;
  std::promise<int> allFailed;
  int failed = 0;  // counted on the client's one I/O thread
  boost::asio::post(client.executor(), [&] {
    for (int i = 0; i < kSendsEach; ++i) {
      for (auto* producer : {&ordersProducer, &paymentsProducer}) {
        OutgoingMessage big;
        big.payload = std::string(1001, 'x');
        producer->asyncSend(big, [&](boost::system::error_code ec, MessageId) {
          EXPECT_EQ(ec, errc::too_large);
          if (++failed == 2 * kSendsEach) allFailed.set_value(failed);
        });
      }
    }
  });
  EXPECT_EQ(allFailed.get_future().get(), 2 * kSendsEach);
  client.close();  // tells a summary still pending
  std::lock_guard lock(logged.mutex);
  const auto& warnings = logged.lines;
  ASSERT_EQ(warnings.size(), 3u) << ::testing::PrintToString(warnings);
  EXPECT_NE(warnings[0].find(orders), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find(payments), std::string::npos) << warnings[1];
  EXPECT_EQ(warnings[2],
            "asyncSend: 198 more failed (message too large) since the warnings above, from 2 "
            "producers");
}

INSTANTIATE_TEST_SUITE_P(Backends, SendLimits, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
