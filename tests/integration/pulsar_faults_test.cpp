// A broker killed (SIGKILL) in the middle of a stream of reconsumes, then started again: the
// client reconnects by itself — producers write what was unconfirmed again, consumers subscribe
// again — and every message is accounted for, processed or in the dead-letter topic. Duplicates
// are allowed (at-least-once) and reported. Run by the ctest entry reconsume_integration_faults
// (it kills the shared plain broker, so it runs alone).
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
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

constexpr int kFaultMessages = 300;

void pulsarScript(const std::string& command) {
  std::string line = std::string(RECONSUME_PULSAR_SCRIPT) + " " + command;
  ASSERT_EQ(std::system(line.c_str()), 0) << line;
}

// What the handler does with message n (as SPEC.md's retry flow would in an application):
//   n % 3 == 0: processed at once; n % 3 == 1: retried once, then processed;
//   n % 3 == 2: retried until the policy gives up (maxRetries 2): dead-lettered.
enum class Fate { processed, retriedThenProcessed, deadLettered };
Fate fateOf(int n) {
  return static_cast<Fate>(n % 3);
}

struct Tally {
  std::mutex mutex;
  std::map<int, int> processed;    // message -> times acknowledged as processed
  std::set<int> sentToDeadLetter;  // the reconsume that dead-lettered returned
  int deliveries = 0;
  int failedCalls = 0;
  std::string firstFailure;

  std::size_t accountedFor() {
    std::lock_guard lock(mutex);
    std::set<int> all(sentToDeadLetter);
    for (const auto& [n, times] : processed) all.insert(n);
    return all.size();
  }
};

void handle(Consumer& consumer, const Message& message, Tally& tally) {
  int n = std::stoi(message.property("n").value_or("-1"));
  int retries = std::stoi(message.property("RECONSUMETIMES").value_or("0"));
  {
    std::lock_guard lock(tally.mutex);
    ++tally.deliveries;
  }
  switch (fateOf(n)) {
    case Fate::processed:
      consumer.acknowledge(message);
      break;
    case Fate::retriedThenProcessed:
      if (retries == 0) {
        consumer.reconsumeLater(message);
        return;
      }
      consumer.acknowledge(message);
      break;
    case Fate::deadLettered:
      consumer.reconsumeLater(message);
      if (retries == 2) {  // the third reconsume passes maxRetries: it went to the DLQ
        std::lock_guard lock(tally.mutex);
        tally.sentToDeadLetter.insert(n);
      }
      return;
  }
  std::lock_guard lock(tally.mutex);
  ++tally.processed[n];
}

ClientOptions faultClientOptions() {
  ClientOptions options;
  options.operationTimeout = 60s;
  options.logger = [](LogLevel level, std::string_view text) {
    if (level >= LogLevel::warn)
      std::fprintf(stderr, "client: %.*s\n", int(text.size()), text.data());
  };
  return options;
}

Consumer subscribeWithRetries(Client& client, const std::string& topic) {
  ConsumerOptions consumerOptions;
  consumerOptions.topics = {topic};
  consumerOptions.subscription = "faults";
  consumerOptions.initialPosition = InitialPosition::earliest;
  consumerOptions.retry = RetryPolicy::levels(DelayLevels::parse("100ms 300ms"), 2);
  return client.subscribe(consumerOptions);
}

Producer createPatientProducer(Client& client, const std::string& topic) {
  ProducerOptions producerOptions;
  producerOptions.topic = topic;
  producerOptions.sendTimeout = 180s;  // outlives the outage: sends wait for the broker
  return client.createProducer(producerOptions);
}

OutgoingMessage numberedWithKey(int n) {
  OutgoingMessage m;
  m.payload = "message-" + std::to_string(n);
  m.key = "k" + std::to_string(n % 10);
  m.properties = {{"n", std::to_string(n)}};
  return m;
}

// Four threads receiving and handling messages until `stop` is set.
std::vector<std::thread> startWorkers(Consumer& consumer, Tally& tally, std::atomic<bool>& stop) {
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (!stop) {
        try {
          if (auto received = consumer.receive(200ms)) handle(consumer, *received, tally);
        } catch (const Error& e) {
          // The broker is away: the message stays unacknowledged and comes again.
          std::lock_guard lock(tally.mutex);
          ++tally.failedCalls;
          if (tally.firstFailure.empty()) tally.firstFailure = e.what();
        }
      }
    });
  }
  return workers;
}

// Until `count` messages are accounted for or `timeout` has passed, looking every `poll`.
void waitForProgress(Tally& tally, std::size_t count, std::chrono::seconds timeout,
                     std::chrono::milliseconds poll) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (tally.accountedFor() < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(poll);  // polling the workers' progress
  }
}

struct Accounting {
  int duplicates = 0;
  std::vector<int> missing;
};

// Each message processed or in the dead-letter topic, as its fate says; duplicates counted.
Accounting account(Tally& tally, std::map<int, int>& deadLetters) {
  Accounting result;
  for (int n = 0; n < kFaultMessages; ++n) {
    bool processed = tally.processed.contains(n);
    bool dead = deadLetters.contains(n);
    if (!processed && !dead) result.missing.push_back(n);
    if (processed) result.duplicates += tally.processed[n] - 1;
    if (dead) result.duplicates += deadLetters[n] - 1;
    if (fateOf(n) == Fate::deadLettered) {
      EXPECT_TRUE(dead) << "message " << n << " should be in the dead-letter topic";
    } else {
      EXPECT_FALSE(dead) << "message " << n << " was dead-lettered";
    }
  }
  return result;
}

TEST(PulsarFaults, ReconsumeStreamSurvivesABrokerKillAndRestart) {
  auto client = Client::connect(pulsar().serviceUrl, faultClientOptions());
  auto topic = uniqueTopic("faults");
  auto consumer = subscribeWithRetries(client, topic);
  auto producer = createPatientProducer(client, topic);
  for (int n = 0; n < kFaultMessages / 2; ++n) producer.send(numberedWithKey(n));

  Tally tally;
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers = startWorkers(consumer, tally, stop);
  // Kill the broker once a third is through, while retries are in flight.
  waitForProgress(tally, kFaultMessages / 3, 60s, 20ms);
  ASSERT_GE(tally.accountedFor(), static_cast<std::size_t>(kFaultMessages / 3));
  pulsarScript("kill");
  // The second half is sent while the broker is gone: the producer holds it and writes it once
  // it is connected again.
  std::vector<std::future<MessageId>> late;
  for (int n = kFaultMessages / 2; n < kFaultMessages; ++n) {
    late.push_back(producer.asyncSend(numberedWithKey(n), boost::asio::use_future));
  }
  pulsarScript("start");

  waitForProgress(tally, kFaultMessages, 240s, 100ms);
  stop = true;
  for (auto& worker : workers) worker.join();
  for (auto& sent : late) {
    ASSERT_EQ(sent.wait_for(0s), std::future_status::ready);
    EXPECT_NO_THROW(sent.get());
  }

  // What the dead-letter topic really holds.
  std::map<int, int> deadLetters;
  auto reader = client.createReader(*consumer.deadLetterTopic());
  while (reader.hasMessageAvailable()) {
    auto dead = reader.readNext(10s);
    ASSERT_TRUE(dead);
    ++deadLetters[std::stoi(dead->property("n").value_or("-1"))];
  }
  auto [duplicates, missing] = account(tally, deadLetters);
  EXPECT_TRUE(missing.empty()) << missing.size() << " messages lost, the first " << missing[0];
  std::printf(
      "[ faults   ] %d messages, %zu processed, %zu dead-lettered, %d duplicates, %d deliveries, "
      "%d calls failed while the broker was away (first: %s)\n",
      kFaultMessages, tally.processed.size(), deadLetters.size(), duplicates, tally.deliveries,
      tally.failedCalls, tally.firstFailure.c_str());
  client.close();
  // After a SIGKILL the standalone's bookie keeps re-registering itself (its old registration
  // lingers in the metadata store), which costs a core and now and then fails a write with "Not
  // enough non-faulty bookies"; a clean restart ends that for the tests that come next.
  pulsarScript("stop");
  pulsarScript("start");
}

}  // namespace
}  // namespace reconsume::integration
