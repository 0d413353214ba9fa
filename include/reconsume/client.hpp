// Client: the entry point. Connects to a backend — a real Pulsar cluster or the in-process
// embedded broker — and creates producers, consumers and readers on it.
//
// Service URLs:
//   embedded://           the process's default embedded broker
//   embedded://<name>     a named embedded broker; clients connecting to the same name share it
//   pulsar://host[:6650]  Pulsar's binary protocol
//   pulsar+ssl://host[:6651]  the same over TLS
//
// Thread safety: a Client is a cheap handle to shared state; all members may be called from
// several threads at once. close() completes every operation still in flight exactly once, with
// errc::closed, and closes every producer, consumer and reader created from this client.
// Errors: connect throws Error(errc::invalid_argument) naming the URL for an unknown scheme or a
// missing host, or naming the option for a bad option value; createProducer, subscribe and
// createReader throw invalid_argument (bad options), connection_lost, timeout, authentication,
// not_found, broker_error, closed.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "reconsume/clock.hpp"
#include "reconsume/consumer.hpp"
#include "reconsume/producer.hpp"
#include "reconsume/reader.hpp"

namespace reconsume {

enum class LogLevel { debug, info, warn, error };
// Called from library threads, never while a lock of the library is held; must be thread-safe.
using Logger = std::function<void(LogLevel level, std::string_view message)>;

struct TlsOptions {
  std::string caFile;             // PEM file of trusted CAs; empty: the system's default store
  bool verifyHostname{true};      // check the broker certificate's name against the URL's host
  std::string certFile, keyFile;  // client certificate (mutual TLS), optional
};

struct ClientOptions {
  std::shared_ptr<Clock>
      clock;  // null: SystemClock; the embedded broker and consumer timers use it
  TlsOptions tls;
  std::string token;                           // token authentication ("" : none)
  std::function<std::string()> tokenSupplier;  // called at each (re)connect; overrides token
  std::chrono::milliseconds operationTimeout{30'000};
  std::chrono::milliseconds connectionTimeout{10'000};
  std::chrono::milliseconds keepAliveInterval{30'000};
  int ioThreads{1};
  Logger logger;  // null: warnings and errors to stderr
  LogLevel logLevel{LogLevel::info};
};

namespace detail {
class ClientImpl;
}

class Client {
 public:
  Client() = default;
  explicit Client(std::shared_ptr<detail::ClientImpl> impl);

  static Client connect(std::string_view serviceUrl, ClientOptions options = {});

  Producer createProducer(std::string_view topic);
  Producer createProducer(const ProducerOptions& options);
  Consumer subscribe(const ConsumerOptions& options);
  Reader createReader(std::string_view topic);  // from the earliest message
  Reader createReader(const ReaderOptions& options);
  // Number of partitions of a topic; 0 for a topic that is not partitioned.
  int partitionsOf(std::string_view topic);

  const std::string& serviceUrl() const;
  // The executor async handlers complete on when they have none of their own.
  boost::asio::any_io_executor executor() const;
  // The clock the client runs on (ClientOptions::clock, or the shared SystemClock).
  const std::shared_ptr<Clock>& clock() const;
  void close();

 private:
  std::shared_ptr<detail::ClientImpl> impl_;
};

}  // namespace reconsume
