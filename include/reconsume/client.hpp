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
// errc::closed, and closes every producer, consumer and reader created from this client. It gives
// them at most ClientOptions::operationTimeout to close gracefully (receipts of what was sent, the
// broker's answers), then shuts the connections down: it returns within operationTimeout even
// when the broker stopped answering and ProducerOptions::sendTimeout is 0. It also stops the
// metrics endpoint (ClientOptions::metricsListen): once close() returns, its address is free. A
// second close(), from any thread, returns when the first has finished. When the last handle of
// the client and of everything made from it goes without close(), the client closes just so, and
// the thread that let go waits for it (on one of the client's own threads, a thread started for it
// waits instead): no operation is left without its completion.
//
// Blocking calls (createProducer, subscribe, createReader, partitionsOf, newTransaction, close,
// and those of Producer, Consumer, Reader and Transaction) made on one of the client's I/O threads
// — inside an async handler running there — throw Error(errc::would_deadlock) naming the call, at
// once and on every backend, and start nothing: they would wait for the thread they block.
// Errors: connect throws Error(errc::invalid_argument) naming the URL for an unknown scheme or a
// missing host, or naming the option for a bad option value; createProducer, subscribe and
// createReader throw invalid_argument (bad options), connection_lost, timeout, authentication,
// not_found, broker_error, closed.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "reconsume/client_options.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/consumer.hpp"
#include "reconsume/consumer_options.hpp"
#include "reconsume/metrics.hpp"
#include "reconsume/producer.hpp"
#include "reconsume/producer_options.hpp"
#include "reconsume/reader.hpp"
#include "reconsume/reader_options.hpp"
#include "reconsume/transaction.hpp"

namespace reconsume {

namespace detail::client {
class ClientImpl;
}

class Client {
 public:
  Client() = default;
  explicit Client(std::shared_ptr<detail::client::ClientImpl> impl);

  static Client connect(std::string_view serviceUrl, ClientOptions options = {});

  Producer createProducer(std::string_view topic);
  Producer createProducer(const ProducerOptions& options);
  Consumer subscribe(const ConsumerOptions& options);
  Reader createReader(std::string_view topic);  // from the earliest message
  Reader createReader(const ReaderOptions& options);
  // Number of partitions of a topic; 0 for a topic that is not partitioned.
  int partitionsOf(std::string_view topic);
  // A new transaction (transaction.hpp).
  Transaction newTransaction(TransactionOptions options = {});
  // Handler: void(boost::system::error_code, Transaction).
  template <typename CompletionToken>
  auto asyncNewTransaction(TransactionOptions options, CompletionToken&& token) {
    using Signature = void(boost::system::error_code, Transaction);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = impl_, options](auto handler) {
          startNewTransaction(impl, options,
                              detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token);
  }

  const std::string& serviceUrl() const;
  // The executor async handlers complete on when they have none of their own.
  boost::asio::any_io_executor executor() const;
  // The clock the client runs on (ClientOptions::clock, or the shared SystemClock).
  const std::shared_ptr<Clock>& clock() const;
  // What this client's consumers and producers did so far (metrics.hpp); any thread, never blocks
  // on the network. Still answers after close().
  MetricsSnapshot metrics() const;
  // Where ClientOptions::metricsListen serves (host:port, the port chosen when 0 was asked for);
  // "" without an endpoint.
  std::string metricsAddress() const;
  void close();

 private:
  using Impl = std::shared_ptr<detail::client::ClientImpl>;
  static boost::asio::any_io_executor executorOf(const Impl& impl);
  static void startNewTransaction(
      const Impl& impl, TransactionOptions options,
      detail::Completion<void(boost::system::error_code, Transaction)> done);

  std::shared_ptr<detail::client::ClientImpl> impl_;
};

}  // namespace reconsume
