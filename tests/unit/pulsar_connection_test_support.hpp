// What the PulsarConnection tests (pulsar_connection_*_test.cpp) share: an io_context thread,
// collected responses, a recording listener, connection options and the frames a peer sends.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/frame_encoder.hpp"
#include "pulsar/connection.hpp"
#include "pulsar_fake_broker.hpp"

namespace reconsume::detail::pulsar::connection_test {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;

// An io_context with a thread, as the client runs one.
class IoThread {
 public:
  IoThread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }
  boost::asio::io_context::executor_type executor() { return io_.get_executor(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

// Collects the responses of requests; each must come exactly once.
class Responses {
 public:
  ResponseCallback callback(int index) {
    return [this, index](Response response) {
      std::lock_guard lock(mutex_);
      auto [it, fresh] = got_.emplace(index, std::move(response));
      EXPECT_TRUE(fresh) << "request " << index << " completed twice";
      changed_.notify_all();
    };
  }
  Response wait(int index, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return got_.contains(index); })) {
      ADD_FAILURE() << "request " << index << " did not complete";
      return {};
    }
    return got_.at(index);
  }
  std::size_t count() {
    std::lock_guard lock(mutex_);
    return got_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, Response> got_;
};

class RecordingListener : public Connection::Listener {
 public:
  void onFrame(detail::protocol::Frame frame) override {
    std::lock_guard lock(mutex_);
    frames.push_back(std::move(frame));
    changed_.notify_all();
  }
  void onSessionLost(std::uint64_t session, const Status& why) override {
    std::lock_guard lock(mutex_);
    lost.push_back(why);
    changed_.notify_all();
  }
  void onCorruptEntry(detail::protocol::CorruptEntry entry) override {
    std::lock_guard lock(mutex_);
    corrupt.push_back(std::move(entry));
    changed_.notify_all();
  }
  bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, condition);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<detail::protocol::Frame> frames;
  std::vector<Status> lost;
  std::vector<detail::protocol::CorruptEntry> corrupt;
};

inline std::shared_ptr<ConnectionOptions> options() {
  auto o = std::make_shared<ConnectionOptions>();
  o->connectionTimeout = 2s;
  o->operationTimeout = 5s;
  o->keepAliveInterval = 30s;
  o->backoff.initial = 10ms;
  o->backoff.max = 50ms;
  o->log = Log(
      [](LogLevel, std::string_view m) {
        if (std::getenv("PULSAR_TEST_LOG")) fprintf(stderr, "log: %.*s\n", (int)m.size(), m.data());
      },
      LogLevel::debug);
  return o;
}

inline BrokerAddress addressOf(const FakeBroker& broker) {
  BrokerAddress address;
  EXPECT_TRUE(BrokerAddress::direct(broker.url(), address).ok());
  return address;
}

inline proto::BaseCommand lookupAnswer(std::uint64_t requestId) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  auto& response = *answer.mutable_lookuptopicresponse();
  response.set_request_id(requestId);
  response.set_response(proto::CommandLookupTopicResponse::Connect);
  response.set_brokerserviceurl("pulsar://broker-1:6650");
  return answer;
}

inline proto::BaseCommand messageCommand(std::uint64_t consumerId, std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(5);
  command.mutable_message()->mutable_message_id()->set_entryid(entry);
  return command;
}

// `redeliveryCount`: how many times the broker says it delivered the message before.
inline std::string messageFrame(std::uint64_t consumerId, std::uint64_t entry, std::string payload,
                                std::uint32_t redeliveryCount = 0) {
  proto::MessageMetadata metadata;
  metadata.set_producer_name("p");
  metadata.set_sequence_id(entry);
  metadata.set_publish_time(1'700'000'000'000);
  auto command = messageCommand(consumerId, entry);
  if (redeliveryCount > 0) command.mutable_message()->set_redelivery_count(redeliveryCount);
  std::string out;
  detail::protocol::appendPayloadFrame(out, command, metadata, payload);
  return out;
}

}  // namespace reconsume::detail::pulsar::connection_test
