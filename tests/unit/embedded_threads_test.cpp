// Several producers and consumers on threads (and a thread moving the clock for delayed
// messages): every message is received exactly once and acknowledged. Meant for the sanitizer
// build as much as for the assertion.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;

TEST(EmbeddedThreads, EveryMessageIsReceivedOnceAndAcknowledged) {
  constexpr int kProducers = 4;
  constexpr int kConsumers = 3;
  constexpr int kPerProducer = 2000;
  constexpr int kTotal = kProducers * kPerProducer;
  Harness harness;
  auto topic = topicName("busy");

  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < kConsumers; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::shared, sinks.back(),
                                          InitialPosition::earliest, /*receiverQueueSize=*/50));
  }

  std::atomic<int> received{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      while (received < kTotal) {
        auto message = sinks[c]->pop(20ms);
        if (!message) continue;
        ack(*consumers[c], *message);
        consumers[c]->flow(1);
        ++received;
      }
    });
  }
  // Moves the broker's clock so delayed messages fall due while everything else runs. It keeps
  // going to the end: a delayed message is only indexed (and its timer armed) once a consumer
  // has permits to read that far, which may be after the last send.
  threads.emplace_back([&] {
    while (received < kTotal) {
      harness.clock->advance(10ms);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      auto producer = harness.producer(topic);
      for (int i = 0; i < kPerProducer; ++i) {
        OutgoingMessage message;
        message.payload = std::to_string(p) + ":" + std::to_string(i);
        if (i % 4 == 0) message.deliverAfter = std::chrono::milliseconds(i % 50);
        send(*producer, message);
      }
    });
  }
  for (auto& t : producers) t.join();
  for (auto& t : threads) t.join();

  std::map<std::string, int> seen;
  for (const auto& sink : sinks) {
    for (const auto& m : sink->messages()) ++seen[m->payload.toString()];
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kTotal));
  for (const auto& [payload, times] : seen) EXPECT_EQ(times, 1) << payload;
  EXPECT_EQ(harness.backlog(topic, "s"), 0);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
