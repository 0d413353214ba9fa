// Transactions on threads: producers publish in transactions they commit or abort (or that time
// out: some surely, more as a thread moving the broker's clock decides), consumers acknowledge some
// messages in transactions. Every committed or plain message is acknowledged in the end, and no
// aborted one is ever delivered. Meant for the sanitizer build as much as for the assertions.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using namespace std::chrono_literals;

struct Shared {
  // ManualClock::advance reads the time then sets it: two threads advancing at once could move
  // it backwards, so they take turns.
  std::mutex clockMutex;
  std::mutex mutex;
  std::set<std::string> expected;  // plain, or published in a committed transaction
  std::set<std::string> aborted;   // published in a transaction that did not commit
  std::set<std::string> acknowledged;
};

void advance(Harness& harness, Shared& shared, std::chrono::milliseconds step) {
  std::lock_guard lock(shared.clockMutex);
  harness.clock->advance(step);
}

void produce(Harness& harness, const std::string& topic, int p, int transactions, Shared& shared) {
  auto producer = harness.producer(topic);
  for (int i = 0; i < transactions; ++i) {
    auto prefix = std::to_string(p) + ":" + std::to_string(i);
    auto txn = harness.newTransaction(5ms);
    std::vector<std::string> sent;
    for (const char* part : {":a", ":b"}) {
      OutgoingMessage message;
      message.payload = prefix + part;
      MessageId id;
      if (trySend(*producer, message, txn, id).ok()) sent.push_back(message.payload);
    }
    send(*producer, prefix + ":plain");
    if (i % 5 == 4) advance(harness, shared, 5ms);  // this one times out, whatever the timing
    bool committed = i % 3 != 0 ? tryCommit(*txn).ok() : (tryAbort(*txn), false);
    std::lock_guard lock(shared.mutex);
    shared.expected.insert(prefix + ":plain");
    for (auto& payload : sent) (committed ? shared.expected : shared.aborted).insert(payload);
  }
}

TEST(EmbeddedTransactionThreads, CommittedMessagesAreAcknowledgedOnceAbortedOnesNeverDelivered) {
  constexpr int kProducers = 3;
  constexpr int kConsumers = 2;
  constexpr int kTransactions = 300;
  Harness harness;
  auto topic = topicName("busy");
  Shared shared;
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < kConsumers; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::shared, sinks.back(),
                                          InitialPosition::earliest, /*receiverQueueSize=*/20));
  }
  std::atomic<bool> producing{true};
  auto finished = [&] {
    if (producing) return false;
    std::lock_guard lock(shared.mutex);
    return shared.acknowledged.size() == shared.expected.size();
  };
  std::vector<std::thread> threads;
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&, c] {
      for (int n = 0; !finished(); ++n) {
        auto message = sinks[c]->pop(5ms);
        if (!message) continue;
        consumers[c]->flow(1);
        bool acked = true;
        if (n % 4 == 0) {  // in a transaction, which may time out before it commits
          auto txn = harness.newTransaction(3ms);
          if (!tryAck(*consumers[c], *message, txn).ok()) {
            consumers[c]->redeliver({message->id});  // timed out first: not held, so give it back
            continue;
          }
          if (n % 8 == 0) advance(harness, shared, 3ms);  // this one times out
          acked = tryCommit(*txn).ok();                   // when not, the abort gave it back
        } else {
          ack(*consumers[c], *message);
        }
        if (!acked) continue;
        std::lock_guard lock(shared.mutex);
        shared.acknowledged.insert(message->payload.toString());
      }
    });
  }
  threads.emplace_back([&] {
    while (!finished()) {
      advance(harness, shared, 1ms);
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] { produce(harness, topic, p, kTransactions, shared); });
  }
  for (auto& t : producers) t.join();
  producing = false;
  for (auto& t : threads) t.join();

  EXPECT_EQ(shared.acknowledged, shared.expected);
  EXPECT_FALSE(shared.aborted.empty());
  for (const auto& sink : sinks) {
    for (const auto& message : sink->messages()) {
      EXPECT_EQ(shared.aborted.count(message->payload.toString()), 0u) << message->payload;
    }
  }
  EXPECT_EQ(harness.backlog(topic, "s"), 0);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
