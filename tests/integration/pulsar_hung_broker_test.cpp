// A broker that hangs instead of dying: the standalone is stopped (SIGSTOP) for 20 s, then
// continued (SIGCONT). Its sockets stay open and TCP keeps accepting connections, so only the
// client's health check (PING after keepAliveInterval of silence, the session declared dead after
// twice that) can notice. The client then reconnects on its own, and nothing is lost: every send
// is confirmed and every message is received. Run by the ctest entry
// reconsume_integration_hung_broker (it stops the shared plain broker, so it runs alone).
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/asio/use_future.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

constexpr int kMessages = 200;
constexpr auto kHang = 20s;
constexpr auto kKeepAlive = 2s;

// The standalone's process id, from scripts/pulsar.sh pid.
pid_t brokerPid() {
  std::string command = std::string(RECONSUME_PULSAR_SCRIPT) + " pid";
  FILE* out = ::popen(command.c_str(), "r");
  if (!out) return -1;
  char line[64] = {};
  bool read = std::fgets(line, sizeof line, out) != nullptr;
  ::pclose(out);
  return read ? static_cast<pid_t>(std::stol(line)) : -1;
}

// SIGSTOP now, SIGCONT at the latest when it goes out of scope (a failed assertion must not
// leave the shared broker stopped).
class Hang {
 public:
  explicit Hang(pid_t pid) : pid_(pid) { EXPECT_EQ(::kill(pid_, SIGSTOP), 0); }
  ~Hang() { resume(); }
  void resume() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
    pid_ = -1;
  }

 private:
  pid_t pid_;
};

// Log lines, and a wait for one that says something.
class LogWatch {
 public:
  Logger logger() {
    return [this](LogLevel level, std::string_view text) {
      if (level >= LogLevel::warn)
        std::fprintf(stderr, "client: %.*s\n", int(text.size()), text.data());
      std::lock_guard lock(mutex_);
      lines_.emplace_back(text);
      changed_.notify_all();
    };
  }
  bool waitFor(const std::string& part, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      for (const auto& line : lines_)
        if (line.find(part) != std::string::npos) return true;
      return false;
    });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
};

OutgoingMessage numbered(int n) {
  OutgoingMessage message;
  message.payload = "message-" + std::to_string(n);
  message.properties = {{"n", std::to_string(n)}};
  return message;
}

TEST(PulsarHungBroker, TheHealthCheckNoticesAndTheClientReconnectsLosingNothing) {
  LogWatch log;
  ClientOptions options;
  options.keepAliveInterval = kKeepAlive;  // dead after 2 × 2 s of silence
  options.connectionTimeout = 3s;
  options.operationTimeout = 90s;
  options.logger = log.logger();
  options.logLevel = LogLevel::debug;
  auto client = Client::connect(pulsar().serviceUrl, options);
  auto topic = uniqueTopic("hung");
  ConsumerOptions consumerOptions;
  consumerOptions.topics = {topic};
  consumerOptions.subscription = "hung";
  consumerOptions.initialPosition = InitialPosition::earliest;
  auto consumer = client.subscribe(consumerOptions);
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  producerOptions.sendTimeout = 120s;  // outlives the hang
  auto producer = client.createProducer(producerOptions);

  std::set<int> received;
  auto receiveAndAck = [&](std::size_t until, std::chrono::seconds within) {
    auto deadline = std::chrono::steady_clock::now() + within;
    while (received.size() < until && std::chrono::steady_clock::now() < deadline) {
      auto message = consumer.receive(1s);
      if (!message) continue;
      received.insert(std::stoi(message->property("n").value_or("-1")));
      consumer.acknowledge(*message);
    }
  };
  for (int n = 0; n < kMessages / 2; ++n) producer.send(numbered(n));
  receiveAndAck(kMessages / 4, 30s);
  ASSERT_GE(received.size(), static_cast<std::size_t>(kMessages / 4));

  auto pid = brokerPid();
  ASSERT_GT(pid, 0) << "scripts/pulsar.sh pid found no broker";
  std::vector<std::future<MessageId>> late;
  {
    Hang hang(pid);
    auto stopped = std::chrono::steady_clock::now();
    // Sent while the broker hangs: held by the producer, written again once it is back.
    for (int n = kMessages / 2; n < kMessages; ++n) {
      late.push_back(producer.asyncSend(numbered(n), boost::asio::use_future));
    }
    // The health check declares the session dead: nothing came back for twice the interval.
    EXPECT_TRUE(log.waitFor("nothing received for", kHang - 2s))
        << "the health check did not notice a broker silent for " << (kHang - 2s).count() << " s";
    // The fault's duration, not a synchronisation: the broker stays stopped for 20 s in all.
    std::this_thread::sleep_until(stopped + kHang);
    hang.resume();
  }
  for (auto& sent : late) {
    ASSERT_EQ(sent.wait_for(90s), std::future_status::ready);
    EXPECT_NO_THROW(sent.get());
  }
  receiveAndAck(kMessages, 90s);
  std::vector<int> missing;
  for (int n = 0; n < kMessages; ++n)
    if (!received.contains(n)) missing.push_back(n);
  EXPECT_TRUE(missing.empty()) << missing.size() << " messages lost, the first " << missing[0];
  std::printf("[ hung     ] %d messages through a %lld s SIGSTOP, %zu received\n", kMessages,
              static_cast<long long>(kHang.count()), received.size());
  client.close();
}

}  // namespace
}  // namespace reconsume::integration
