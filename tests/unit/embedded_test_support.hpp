// Helpers for the embedded broker's tests: a MessageSink that records what it is given, and a
// harness that drives the Backend seam directly. Every embedded operation completes inline, so the
// helpers check that each callback ran exactly once before returning its result.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/admin_backend.hpp"
#include "client/backend.hpp"
#include "common/service_url.hpp"
#include "embedded/broker_registry.hpp"
#include "embedded/embedded_backend.hpp"
#include "embedded/faults.hpp"
#include "expect_error.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::embedded::testing {

// Records every call; thread-safe. Holds no backend handle, so it can never call back.
class RecordingSink final : public client::MessageSink {
 public:
  void onMessage(std::shared_ptr<MessageData> message) override {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(message);
      all_.push_back(std::move(message));
    }
    arrived_.notify_all();
  }
  void onReset(const std::string& topic) override {
    std::lock_guard lock(mutex_);
    resets_.push_back(topic);
    queue_.clear();  // what the client layer does: drop what is still queued
  }
  void onEnded(const std::string& topic, const Status& why) override {
    std::lock_guard lock(mutex_);
    ended_.push_back(topic + ": " + why.message);
  }

  // Every message received so far, in order of arrival.
  std::vector<std::shared_ptr<MessageData>> messages() const {
    std::lock_guard lock(mutex_);
    return all_;
  }
  std::vector<std::string> payloads() const {
    std::vector<std::string> out;
    for (const auto& m : messages()) out.push_back(m->payload.toString());
    return out;
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return all_.size();
  }
  // Messages received since the last take() and not dropped by a reset.
  std::vector<std::shared_ptr<MessageData>> take() {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<MessageData>> out(queue_.begin(), queue_.end());
    queue_.clear();
    return out;
  }
  // The oldest queued message, waiting up to `timeout` (real time) for one; null when none came.
  std::shared_ptr<MessageData> pop(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!arrived_.wait_for(lock, timeout, [&] { return !queue_.empty(); })) return nullptr;
    auto message = queue_.front();
    queue_.pop_front();
    return message;
  }
  std::vector<std::string> resets() const {
    std::lock_guard lock(mutex_);
    return resets_;
  }
  std::vector<std::string> ended() const {
    std::lock_guard lock(mutex_);
    return ended_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    all_.clear();
    queue_.clear();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::shared_ptr<MessageData>> all_;
  std::deque<std::shared_ptr<MessageData>> queue_;
  std::vector<std::string> resets_;
  std::vector<std::string> ended_;
};

inline std::string topicName(const std::string& local) {
  return "persistent://public/default/" + local;
}

// A broker name no other test uses (brokers are process-wide by name).
inline std::string uniqueBrokerName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "-" + info->name();
}

// Runs an inline operation and returns its Status, checking the callback ran exactly once.
template <typename... Results, typename Start>
Status callStatus(Start start, Results&... results) {
  int calls = 0;
  Status outcome;
  start([&](const Status& status, Results... values) {
    ++calls;
    outcome = status;
    ((results = std::move(values)), ...);
  });
  EXPECT_EQ(calls, 1) << "the callback must run exactly once, inline";
  return outcome;
}

// One client of a broker: a Backend, its AdminBackend, and a ManualClock (unless given another).
class Harness {
 public:
  // `query`: broker options, e.g. "?maxMessageSize=100".
  explicit Harness(std::string brokerName = uniqueBrokerName(), const std::string& query = "",
                   std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>())
      : clock(std::move(clock)), brokerName(brokerName) {
    auto connection =
        connectEmbedded(ServiceUrl::parse("embedded://" + brokerName + query), this->clock);
    backend = connection.backend;
    admin = connectEmbeddedAdmin(ServiceUrl::parse("embedded://" + brokerName));
  }

  std::shared_ptr<client::BackendProducer> producer(const std::string& topic,
                                                    ProducerOptions options = {}) {
    options.topic = topic;
    std::shared_ptr<client::BackendProducer> producer;
    callStatus([&](auto done) { backend->createProducer(options, std::move(done)); }, producer)
        .raiseIfFailed();
    return producer;
  }

  Status trySubscribe(const client::SubscribeSpec& spec, std::shared_ptr<client::MessageSink> sink,
                      std::shared_ptr<client::BackendConsumer>& consumer) {
    return callStatus(
        [&](auto done) { backend->subscribe(spec, std::move(sink), std::move(done)); }, consumer);
  }

  std::shared_ptr<client::BackendConsumer> subscribe(const client::SubscribeSpec& spec,
                                                     std::shared_ptr<client::MessageSink> sink) {
    std::shared_ptr<client::BackendConsumer> consumer;
    trySubscribe(spec, std::move(sink), consumer).raiseIfFailed();
    return consumer;
  }

  std::shared_ptr<client::BackendConsumer> subscribe(
      const std::string& topic, const std::string& subscription, SubscriptionType type,
      std::shared_ptr<client::MessageSink> sink,
      InitialPosition position = InitialPosition::earliest, int receiverQueueSize = 1000,
      const std::string& consumerName = "") {
    client::SubscribeSpec spec;
    spec.topic = topic;
    spec.subscription = subscription;
    spec.type = type;
    spec.initialPosition = position;
    spec.receiverQueueSize = receiverQueueSize;
    spec.consumerName = consumerName;
    return subscribe(spec, std::move(sink));
  }

  // The broker's fault controls, reached as a test of the library reaches them: by name.
  Faults& faults() const {
    auto broker = findBroker(brokerName);
    if (!broker) throw Error(errc::not_found, "no embedded broker '" + brokerName + "' runs");
    return broker->faults();  // the backend holds the broker: the reference stays valid
  }

  Status tryNewTransaction(std::chrono::milliseconds timeout,
                           std::shared_ptr<client::BackendTransaction>& transaction) {
    return callStatus([&](auto done) { backend->newTransaction(timeout, std::move(done)); },
                      transaction);
  }

  std::shared_ptr<client::BackendTransaction> newTransaction(
      std::chrono::milliseconds timeout = std::chrono::minutes(1)) {
    std::shared_ptr<client::BackendTransaction> transaction;
    tryNewTransaction(timeout, transaction).raiseIfFailed();
    return transaction;
  }

  std::int64_t backlog(const std::string& topic, const std::string& subscription) {
    for (const auto& stats : admin->subscriptions(topic)) {
      if (stats.name == subscription) return stats.backlog;
    }
    ADD_FAILURE() << "no subscription " << subscription << " on " << topic;
    return -1;
  }

  std::shared_ptr<ManualClock> clock;
  std::string brokerName;
  std::shared_ptr<client::Backend> backend;
  std::shared_ptr<client::AdminBackend> admin;
};

inline Status trySend(client::BackendProducer& producer, const OutgoingMessage& message,
                      MessageId& id) {
  return callStatus([&](auto done) { producer.send(message, std::move(done)); }, id);
}

inline MessageId send(client::BackendProducer& producer, const OutgoingMessage& message) {
  MessageId id;
  trySend(producer, message, id).raiseIfFailed();
  return id;
}

inline MessageId send(client::BackendProducer& producer, const std::string& payload) {
  OutgoingMessage message;
  message.payload = payload;
  return send(producer, message);
}

inline void ack(client::BackendConsumer& consumer, const MessageData& message) {
  callStatus([&](auto done) { consumer.acknowledge(message, std::move(done)); }).raiseIfFailed();
}

// ---- transactions

inline Status trySend(client::BackendProducer& producer, const OutgoingMessage& message,
                      const std::shared_ptr<client::BackendTransaction>& transaction,
                      MessageId& id) {
  return callStatus([&](auto done) { producer.send(message, transaction, std::move(done)); }, id);
}

inline MessageId send(client::BackendProducer& producer, const std::string& payload,
                      const std::shared_ptr<client::BackendTransaction>& transaction) {
  OutgoingMessage message;
  message.payload = payload;
  MessageId id;
  trySend(producer, message, transaction, id).raiseIfFailed();
  return id;
}

inline Status tryAck(client::BackendConsumer& consumer, const MessageData& message) {
  return callStatus([&](auto done) { consumer.acknowledge(message, std::move(done)); });
}

inline Status tryAck(client::BackendConsumer& consumer, const MessageData& message,
                     const std::shared_ptr<client::BackendTransaction>& transaction) {
  return callStatus(
      [&](auto done) { consumer.acknowledge(message, transaction, std::move(done)); });
}

inline void ack(client::BackendConsumer& consumer, const MessageData& message,
                const std::shared_ptr<client::BackendTransaction>& transaction) {
  tryAck(consumer, message, transaction).raiseIfFailed();
}

inline Status tryCommit(client::BackendTransaction& transaction) {
  return callStatus([&](auto done) { transaction.commit(std::move(done)); });
}

inline Status tryAbort(client::BackendTransaction& transaction) {
  return callStatus([&](auto done) { transaction.abort(std::move(done)); });
}

inline std::vector<std::string> payloadsOf(
    const std::vector<std::shared_ptr<MessageData>>& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) out.push_back(m->payload.toString());
  return out;
}

// The Error a call throws (expect_error.hpp).
using reconsume::testing::thrownBy;

}  // namespace reconsume::detail::embedded::testing
