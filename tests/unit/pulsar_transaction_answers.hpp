// The broker's side of transactions, for scripts of the FakeBroker: the coordinator-assign
// topic's partitions, TC_CLIENT_CONNECT, NEW_TXN, the registrations and END_TXN — plus a
// pulsar:// backend driven directly at the Backend seam (with a sink that queues what it gets).
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "protocol/transaction_commands.hpp"
#include "pulsar/pulsar_backend.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"

namespace reconsume::pulsar_test::txn_answers {

using namespace std::chrono_literals;
namespace protocol = detail::protocol;

inline void answerCoordinators(FakePeer& peer, int partitions) {
  auto request = peer.expect(proto::BaseCommand::PARTITIONED_METADATA).command.partitionmetadata();
  EXPECT_EQ(request.topic(), protocol::kCoordinatorAssignTopic);
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
  answer.mutable_partitionmetadataresponse()->set_request_id(request.request_id());
  answer.mutable_partitionmetadataresponse()->set_partitions(partitions);
  answer.mutable_partitionmetadataresponse()->set_response(
      proto::CommandPartitionedTopicMetadataResponse::Success);
  peer.write(answer);
}

// LOOKUP of coordinator `tcId`'s partition, answered with `url`.
inline void answerCoordinatorLookup(FakePeer& peer, const std::string& url, std::uint64_t tcId) {
  answers::answerLookup(peer, url, protocol::coordinatorTopic(tcId));
}

inline void answerTcConnect(FakePeer& peer, std::uint64_t tcId) {
  auto request =
      peer.expect(proto::BaseCommand::TC_CLIENT_CONNECT_REQUEST).command.tcclientconnectrequest();
  EXPECT_EQ(request.tc_id(), tcId);
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::TC_CLIENT_CONNECT_RESPONSE);
  answer.mutable_tcclientconnectresponse()->set_request_id(request.request_id());
  peer.write(answer);
}

// The lookup of coordinator `tcId` and its TC_CLIENT_CONNECT, both answered.
inline void connectCoordinator(FakePeer& peer, const std::string& url, std::uint64_t tcId) {
  answerCoordinatorLookup(peer, url, tcId);
  answerTcConnect(peer, tcId);
}

inline void writeError(FakePeer& peer, std::uint64_t requestId, proto::ServerError error,
                       const std::string& message) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::ERROR);
  answer.mutable_error()->set_request_id(requestId);
  answer.mutable_error()->set_error(error);
  answer.mutable_error()->set_message(message);
  peer.write(answer);
}

// NEW_TXN, answered with `txn` (or `error`); returns the request.
inline proto::CommandNewTxn answerNewTxn(FakePeer& peer, detail::TxnId txn,
                                         std::optional<proto::ServerError> error = {}) {
  auto request = peer.expect(proto::BaseCommand::NEW_TXN).command.newtxn();
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::NEW_TXN_RESPONSE);
  auto& response = *answer.mutable_newtxnresponse();
  response.set_request_id(request.request_id());
  response.set_txnid_most_bits(txn.mostBits);
  if (error) {
    response.set_error(*error);
    response.set_message("scripted " + proto::ServerError_Name(*error));
  } else {
    response.set_txnid_least_bits(txn.leastBits);
  }
  peer.write(answer);
  return request;
}

inline proto::CommandAddPartitionToTxn answerAddPartition(
    FakePeer& peer, std::optional<proto::ServerError> error = {}) {
  auto request = peer.expect(proto::BaseCommand::ADD_PARTITION_TO_TXN).command.addpartitiontotxn();
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::ADD_PARTITION_TO_TXN_RESPONSE);
  auto& response = *answer.mutable_addpartitiontotxnresponse();
  response.set_request_id(request.request_id());
  response.set_txnid_most_bits(request.txnid_most_bits());
  response.set_txnid_least_bits(request.txnid_least_bits());
  if (error) response.set_error(*error);
  peer.write(answer);
  return request;
}

inline proto::CommandAddSubscriptionToTxn answerAddSubscription(FakePeer& peer) {
  auto request =
      peer.expect(proto::BaseCommand::ADD_SUBSCRIPTION_TO_TXN).command.addsubscriptiontotxn();
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::ADD_SUBSCRIPTION_TO_TXN_RESPONSE);
  auto& response = *answer.mutable_addsubscriptiontotxnresponse();
  response.set_request_id(request.request_id());
  response.set_txnid_most_bits(request.txnid_most_bits());
  response.set_txnid_least_bits(request.txnid_least_bits());
  peer.write(answer);
  return request;
}

inline void answerEndTxn(FakePeer& peer, const proto::CommandEndTxn& request,
                         std::optional<proto::ServerError> error = {}) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::END_TXN_RESPONSE);
  auto& response = *answer.mutable_endtxnresponse();
  response.set_request_id(request.request_id());
  response.set_txnid_most_bits(request.txnid_most_bits());
  response.set_txnid_least_bits(request.txnid_least_bits());
  if (error) {
    response.set_error(*error);
    response.set_message("scripted " + proto::ServerError_Name(*error));
  }
  peer.write(answer);
}

// Reads END_TXN, checks its transaction and action, answers it (or not: `answer` false).
inline proto::CommandEndTxn expectEndTxn(FakePeer& peer, detail::TxnId txn,
                                         proto::TxnAction action) {
  auto request = peer.expect(proto::BaseCommand::END_TXN).command.endtxn();
  EXPECT_EQ(request.txnid_most_bits(), txn.mostBits);
  EXPECT_EQ(request.txnid_least_bits(), txn.leastBits);
  EXPECT_TRUE(request.has_txn_action());
  EXPECT_EQ(request.txn_action(), action);
  return request;
}

// What a backend consumer received, for the test thread to take.
class QueueSink final : public detail::client::MessageSink {
 public:
  void onMessage(std::shared_ptr<detail::MessageData> message) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    changed_.notify_all();
  }
  void onReset(const std::string&) override {}
  void onEnded(const std::string&, const detail::Status&) override {}

  std::shared_ptr<detail::MessageData> take(std::chrono::milliseconds timeout = 10s) {
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

// A pulsar:// backend with its I/O thread, used at the Backend seam; calls block on the answer.
class TestBackend {
 public:
  explicit TestBackend(const std::string& url,
                       std::shared_ptr<detail::SteadyClock> clock = nullptr) {
    ClientOptions options;
    options.operationTimeout = 10s;
    backend = detail::pulsar::connectPulsar(
        detail::ServiceUrl::parse(url), options, io,
        detail::Log([](LogLevel, std::string_view) {}, LogLevel::error), std::move(clock));
    thread = std::thread([this] { io.run(); });
  }
  ~TestBackend() {
    std::promise<void> closed;
    backend->close([&](const detail::Status&) { closed.set_value(); });
    closed.get_future().wait();
    work.reset();
    thread.join();
  }

  std::pair<detail::Status, std::shared_ptr<detail::client::BackendTransaction>> newTransaction(
      std::chrono::milliseconds timeout = 45s) {
    std::promise<std::pair<detail::Status, std::shared_ptr<detail::client::BackendTransaction>>>
        result;
    backend->newTransaction(timeout, [&](const detail::Status& status, auto transaction) {
      result.set_value({status, std::move(transaction)});
    });
    return result.get_future().get();
  }

  std::shared_ptr<detail::client::BackendProducer> createProducer(const std::string& topic) {
    std::promise<std::shared_ptr<detail::client::BackendProducer>> created;
    ProducerOptions options;
    options.topic = topic;
    backend->createProducer(options, [&](const detail::Status& status, auto producer) {
      EXPECT_TRUE(status.ok()) << status.message;
      created.set_value(std::move(producer));
    });
    return created.get_future().get();
  }

  std::shared_ptr<detail::client::BackendConsumer> subscribe(const std::string& topic,
                                                             const std::string& subscription,
                                                             std::shared_ptr<QueueSink> sink) {
    std::promise<std::shared_ptr<detail::client::BackendConsumer>> created;
    detail::client::SubscribeSpec spec;
    spec.topic = topic;
    spec.subscription = subscription;
    backend->subscribe(spec, std::move(sink), [&](const detail::Status& status, auto consumer) {
      EXPECT_TRUE(status.ok()) << status.message;
      created.set_value(std::move(consumer));
    });
    return created.get_future().get();
  }

  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::shared_ptr<detail::client::Backend> backend;
  std::thread thread;
};

// A callback's status, for the test thread to wait on.
struct StatusFuture {
  std::shared_ptr<std::promise<detail::Status>> promise =
      std::make_shared<std::promise<detail::Status>>();
  std::future<detail::Status> future = promise->get_future();

  detail::Callback<> callback() {
    return [promise = promise](const detail::Status& status) { promise->set_value(status); };
  }
  detail::Callback<MessageId> sendCallback() {
    return [promise = promise](const detail::Status& status, MessageId) {
      promise->set_value(status);
    };
  }
  detail::Status get(std::chrono::milliseconds timeout = 10s) {
    if (future.wait_for(timeout) != std::future_status::ready) {
      return detail::Status(errc::timeout, "the test waited in vain");
    }
    return future.get();
  }
};

}  // namespace reconsume::pulsar_test::txn_answers
