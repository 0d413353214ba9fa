// Transactions of the pulsar:// backend, at the Backend seam, against the standalone (started with
// transactionCoordinatorEnabled=true): what is published in a transaction is invisible until it
// commits and gone when it aborts; what is acknowledged in one comes back after an abort and not
// after a commit; two transactions cannot acknowledge one message; a commit after the
// transaction's timeout finds it gone. Also times one whole round of a transaction.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <thread>

#include "client/backend.hpp"
#include "common/service_url.hpp"
#include "integration/pulsar_environment.hpp"
#include "pulsar/pulsar_backend.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;
using detail::Status;
using Transaction = std::shared_ptr<detail::client::BackendTransaction>;

class QueueSink final : public detail::client::MessageSink {
 public:
  void onMessage(std::shared_ptr<detail::MessageData> message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    changed_.notify_all();
  }
  void onReset(const std::string&) override {
    std::lock_guard lock(mutex_);
    messages_.clear();
  }
  void onEnded(const std::string&, const Status&) override {}

  std::shared_ptr<detail::MessageData> take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [this] { return !messages_.empty(); })) return nullptr;
    auto message = messages_.front();
    messages_.pop_front();
    return message;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<detail::MessageData>> messages_;
};

// Waits for a callback's outcome.
template <typename... Results>
class Outcome {
 public:
  detail::Callback<Results...> callback() {
    return [promise = promise_](const Status& status, Results... results) {
      promise->set_value({status, std::make_tuple(std::move(results)...)});
    };
  }
  std::pair<Status, std::tuple<Results...>> get() {
    auto future = promise_->get_future();
    if (future.wait_for(60s) != std::future_status::ready) {
      return {Status(errc::timeout, "the test waited in vain"), {}};
    }
    return future.get();
  }
  Status status() { return get().first; }

 private:
  std::shared_ptr<std::promise<std::pair<Status, std::tuple<Results...>>>> promise_ =
      std::make_shared<std::promise<std::pair<Status, std::tuple<Results...>>>>();
};

class PulsarTransaction : public ::testing::Test {
 protected:
  void SetUp() override {
    ClientOptions options;
    options.operationTimeout = 30s;
    backend_ = detail::pulsar::connectPulsar(
        detail::ServiceUrl::parse(pulsar().serviceUrl), options, io_,
        detail::Log([](LogLevel, std::string_view) {}, LogLevel::error));
    thread_ = std::thread([this] { io_.run(); });
    topic_ = uniqueTopic("txn");
  }
  void TearDown() override {
    Outcome<> closed;
    backend_->close(closed.callback());
    closed.status();
    work_.reset();
    thread_.join();
  }

  Transaction begin(std::chrono::milliseconds timeout = 60s) {
    Outcome<Transaction> opened;
    backend_->newTransaction(timeout, opened.callback());
    auto [status, result] = opened.get();
    EXPECT_TRUE(status.ok()) << status.message;
    return std::get<0>(result);
  }
  std::shared_ptr<detail::client::BackendProducer> producer() {
    Outcome<std::shared_ptr<detail::client::BackendProducer>> created;
    ProducerOptions options;
    options.topic = topic_;
    backend_->createProducer(options, created.callback());
    auto [status, result] = created.get();
    EXPECT_TRUE(status.ok()) << status.message;
    return std::get<0>(result);
  }
  std::shared_ptr<detail::client::BackendConsumer> subscribe(std::shared_ptr<QueueSink> sink) {
    Outcome<std::shared_ptr<detail::client::BackendConsumer>> created;
    detail::client::SubscribeSpec spec;
    spec.topic = topic_;
    spec.subscription = "txn";
    spec.initialPosition = InitialPosition::earliest;
    backend_->subscribe(spec, std::move(sink), created.callback());
    auto [status, result] = created.get();
    EXPECT_TRUE(status.ok()) << status.message;
    return std::get<0>(result);
  }
  static Status send(detail::client::BackendProducer& producer, const std::string& payload,
                     const Transaction& txn = nullptr) {
    Outcome<MessageId> sent;
    OutgoingMessage message;
    message.payload = payload;
    if (txn) {
      producer.send(message, txn, sent.callback());
    } else {
      producer.send(message, sent.callback());
    }
    return sent.status();
  }
  static Status ack(detail::client::BackendConsumer& consumer, const detail::MessageData& message,
                    const Transaction& txn) {
    Outcome<> acked;
    consumer.acknowledge(message, txn, acked.callback());
    return acked.status();
  }
  static Status end(const Transaction& txn, bool commit) {
    Outcome<> ended;
    if (commit) {
      txn->commit(ended.callback());
    } else {
      txn->abort(ended.callback());
    }
    return ended.status();
  }
  static void close(detail::client::BackendConsumer& consumer) {
    Outcome<> closed;
    consumer.close(closed.callback());
    closed.status();
  }
  // A message sent and received outside any transaction, and the consumer that holds it.
  std::shared_ptr<detail::MessageData> deliveredMessage(
      std::shared_ptr<detail::client::BackendConsumer>& consumer,
      std::shared_ptr<QueueSink>& sink) {
    sink = std::make_shared<QueueSink>();
    consumer = subscribe(sink);
    auto p = producer();
    EXPECT_TRUE(send(*p, "m").ok());
    return sink->take(10s);
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::shared_ptr<detail::client::Backend> backend_;
  std::thread thread_;
  std::string topic_;
};

TEST_F(PulsarTransaction, APublishIsInvisibleUntilTheCommitThenVisible) {
  auto sink = std::make_shared<QueueSink>();
  auto consumer = subscribe(sink);
  auto p = producer();
  auto txn = begin();
  ASSERT_TRUE(txn);
  ASSERT_TRUE(send(*p, "t1", txn).ok());
  ASSERT_TRUE(send(*p, "t2", txn).ok());
  EXPECT_EQ(sink->take(2s), nullptr) << "visible before the commit";
  auto committed = end(txn, true);
  ASSERT_TRUE(committed.ok()) << committed.message;
  auto first = sink->take(10s);
  auto second = sink->take(10s);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->payload, "t1");
  EXPECT_EQ(second->payload, "t2");
}

TEST_F(PulsarTransaction, AnAbortDiscardsWhatWasPublished) {
  auto sink = std::make_shared<QueueSink>();
  auto consumer = subscribe(sink);
  auto p = producer();
  auto txn = begin();
  ASSERT_TRUE(txn);
  ASSERT_TRUE(send(*p, "discarded", txn).ok());
  auto aborted = end(txn, false);
  ASSERT_TRUE(aborted.ok()) << aborted.message;
  ASSERT_TRUE(send(*p, "after").ok());
  auto received = sink->take(10s);
  ASSERT_TRUE(received);
  EXPECT_EQ(received->payload, "after");
  EXPECT_EQ(sink->take(1s), nullptr);
}

TEST_F(PulsarTransaction, AnAcknowledgementAbortedIsRedelivered) {
  std::shared_ptr<detail::client::BackendConsumer> consumer;
  std::shared_ptr<QueueSink> sink;
  auto message = deliveredMessage(consumer, sink);
  ASSERT_TRUE(message);
  auto txn = begin();
  ASSERT_TRUE(txn);
  auto acked = ack(*consumer, *message, txn);
  ASSERT_TRUE(acked.ok()) << acked.message;
  auto aborted = end(txn, false);
  ASSERT_TRUE(aborted.ok()) << aborted.message;
  close(*consumer);
  auto again = std::make_shared<QueueSink>();
  auto reconnected = subscribe(again);
  auto redelivered = again->take(10s);
  ASSERT_TRUE(redelivered) << "the aborted acknowledgement must not count";
  EXPECT_EQ(redelivered->id, message->id);
}

TEST_F(PulsarTransaction, AnAcknowledgementCommittedIsNotRedelivered) {
  std::shared_ptr<detail::client::BackendConsumer> consumer;
  std::shared_ptr<QueueSink> sink;
  auto message = deliveredMessage(consumer, sink);
  ASSERT_TRUE(message);
  auto txn = begin();
  ASSERT_TRUE(txn);
  ASSERT_TRUE(ack(*consumer, *message, txn).ok());
  auto committed = end(txn, true);
  ASSERT_TRUE(committed.ok()) << committed.message;
  close(*consumer);
  auto again = std::make_shared<QueueSink>();
  auto reconnected = subscribe(again);
  EXPECT_EQ(again->take(3s), nullptr) << "acknowledged by the commit";
}

TEST_F(PulsarTransaction, TwoTransactionsCannotAcknowledgeTheSameMessage) {
  std::shared_ptr<detail::client::BackendConsumer> consumer;
  std::shared_ptr<QueueSink> sink;
  auto message = deliveredMessage(consumer, sink);
  ASSERT_TRUE(message);
  auto first = begin();
  auto second = begin();
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(ack(*consumer, *message, first).ok());
  auto conflict = ack(*consumer, *message, second);
  EXPECT_EQ(conflict.code, make_error_code(errc::transaction_conflict)) << conflict.message;
  // The failed acknowledgement turns the second transaction's commit into an abort.
  auto refused = end(second, true);
  EXPECT_EQ(refused.code, make_error_code(errc::transaction_not_found)) << refused.message;
  EXPECT_TRUE(end(first, false).ok());
}

TEST_F(PulsarTransaction, ACommitAfterTheTimeoutFindsTheTransactionGone) {
  auto p = producer();
  auto txn = begin(1s);
  ASSERT_TRUE(txn);
  ASSERT_TRUE(send(*p, "too late", txn).ok());
  std::this_thread::sleep_for(4s);  // the coordinator aborts it after 1 s
  auto committed = end(txn, true);
  EXPECT_EQ(committed.code, make_error_code(errc::transaction_not_found)) << committed.message;
  EXPECT_EQ(committed.message.find("unknown"), std::string::npos) << committed.message;
}

TEST_F(PulsarTransaction, OneRoundTakesAFewRoundTrips) {
  auto sink = std::make_shared<QueueSink>();
  auto consumer = subscribe(sink);
  auto p = producer();
  constexpr int kRounds = 20;
  for (int i = 0; i < kRounds + 1; ++i) ASSERT_TRUE(send(*p, "in " + std::to_string(i)).ok());
  std::vector<double> millis;
  for (int i = 0; i < kRounds + 1; ++i) {
    auto message = sink->take(10s);
    ASSERT_TRUE(message);
    auto start = std::chrono::steady_clock::now();
    // NEW_TXN, ADD_PARTITION_TO_TXN + SEND, ADD_SUBSCRIPTION_TO_TXN + ACK, END_TXN.
    auto txn = begin();
    ASSERT_TRUE(txn);
    ASSERT_TRUE(send(*p, "out " + std::to_string(i), txn).ok());
    ASSERT_TRUE(ack(*consumer, *message, txn).ok());
    ASSERT_TRUE(end(txn, true).ok());
    std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    if (i > 0) millis.push_back(took.count());  // the first one connects the coordinator
  }
  std::sort(millis.begin(), millis.end());
  auto median = millis[millis.size() / 2];
  std::cout << "[ txn round ] NEW_TXN+ADD_PARTITION+SEND+ADD_SUBSCRIPTION+ACK+END_TXN over "
            << kRounds << " rounds: min " << millis.front() << " ms, median " << median
            << " ms, max " << millis.back() << " ms" << std::endl;
  RecordProperty("median_ms", std::to_string(median));
  EXPECT_LT(median, 2000.0);
}

}  // namespace
}  // namespace reconsume::integration
