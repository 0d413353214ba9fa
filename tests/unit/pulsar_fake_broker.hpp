// A scripted peer for the network layer's tests: a TCP listener on 127.0.0.1 whose accepted
// connections each run one script (in order) on the broker's own thread. A script reads the
// client's frames with the real FrameDecoder and writes exact bytes back — recorded answers, or
// deliberately broken ones — so the connection logic is tested against bytes, not mocks.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"

namespace reconsume::pulsar_test {

using namespace std::chrono_literals;

class FakePeer {
 public:
  explicit FakePeer(int fd) : fd_(fd) {}

  // The next frame the client sent; throws when none comes within `timeout` or the client closed.
  detail::protocol::Frame read(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto result = decoder_.next();
      if (result.hasError())
        throw std::runtime_error("client sent garbage: " + result.error().message);
      if (result.hasFrame()) return std::move(result.frame());
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw std::runtime_error("no frame from the client in time");
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[65536];
      auto n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) throw std::runtime_error("the client closed the connection");
      decoder_.feed(buffer, static_cast<std::size_t>(n));
    }
  }

  // Reads frames until one of `type` arrives (answering PINGs on the way); returns it.
  detail::protocol::Frame expect(proto::BaseCommand::Type type,
                                 std::chrono::milliseconds timeout = 5s) {
    for (;;) {
      auto frame = read(timeout);
      if (frame.command.type() == type) return frame;
      if (frame.command.type() == proto::BaseCommand::PING) {
        write(detail::protocol::encodeFrame(detail::protocol::pong()));
        continue;
      }
      throw std::runtime_error("expected " + proto::BaseCommand::Type_Name(type) + ", got " +
                               proto::BaseCommand::Type_Name(frame.command.type()));
    }
  }

  // Reads CONNECT and answers CONNECTED; returns the CONNECT command.
  proto::CommandConnect acceptConnect(int maxMessageSize = 5 * 1024 * 1024) {
    auto connect = expect(proto::BaseCommand::CONNECT).command.connect();
    proto::BaseCommand connected;
    connected.set_type(proto::BaseCommand::CONNECTED);
    connected.mutable_connected()->set_server_version("fake-broker");
    connected.mutable_connected()->set_protocol_version(21);
    connected.mutable_connected()->set_max_message_size(maxMessageSize);
    write(detail::protocol::encodeFrame(connected));
    return connect;
  }

  void write(std::string_view bytes) {
    while (!bytes.empty()) {
      auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("cannot write to the client");
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void write(const proto::BaseCommand& command) { write(detail::protocol::encodeFrame(command)); }

  // Answers CLOSE_PRODUCER and CLOSE_CONSUMER with SUCCESS (and drops every other frame) until
  // the client closes the connection; true when it did within `timeout`.
  bool answerClosesUntilClosed(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      detail::protocol::Frame frame;
      try {
        frame = read(left);
      } catch (const std::exception&) {
        return std::chrono::steady_clock::now() < deadline;
      }
      answerIfClose(frame);
    }
  }

  // Answers `frame` with SUCCESS when it is a CLOSE_PRODUCER or CLOSE_CONSUMER; true when it was.
  bool answerIfClose(const detail::protocol::Frame& frame) {
    std::optional<std::uint64_t> requestId;
    if (frame.command.type() == proto::BaseCommand::CLOSE_PRODUCER) {
      requestId = frame.command.close_producer().request_id();
    } else if (frame.command.type() == proto::BaseCommand::CLOSE_CONSUMER) {
      requestId = frame.command.close_consumer().request_id();
    }
    if (!requestId) return false;
    proto::BaseCommand success;
    success.set_type(proto::BaseCommand::SUCCESS);
    success.mutable_success()->set_request_id(*requestId);
    write(success);
    return true;
  }

  // True when the client closes the connection within `timeout` (frames before that are read
  // and dropped).
  bool waitForClose(std::chrono::milliseconds timeout = 5s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[65536];
      if (::recv(fd_, buffer, sizeof buffer, 0) <= 0) return true;
    }
  }

 private:
  int fd_;
  detail::protocol::FrameDecoder decoder_;
};

class FakeBroker {
 public:
  using Script = std::function<void(FakePeer&)>;

  // One script per connection the test expects, run in the order the connections come in.
  explicit FakeBroker(std::vector<Script> scripts) : scripts_(std::move(scripts)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 8) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    socklen_t size = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }

  ~FakeBroker() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }

  std::string url() const { return "pulsar://127.0.0.1:" + std::to_string(port_); }
  int accepted() const { return accepted_; }
  // True once every script ran to its end.
  bool finished() const { return finished_; }

 private:
  void serve() {
    for (auto& script : scripts_) {
      int fd = -1;
      while (!stop_ && fd < 0) {
        pollfd p{listener_, POLLIN, 0};
        if (::poll(&p, 1, 50) > 0) fd = ::accept(listener_, nullptr, nullptr);
      }
      if (fd < 0) return;
      ++accepted_;
      try {
        FakePeer peer(fd);
        script(peer);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "fake broker, connection " << accepted_ << ": " << e.what();
      }
      ::close(fd);
    }
    finished_ = true;
  }

  std::vector<Script> scripts_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace reconsume::pulsar_test
