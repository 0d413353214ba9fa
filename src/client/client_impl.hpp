// The state behind a Client: the backend, the clock, the I/O threads async handlers complete on,
// and every producer, consumer and reader still open (closed with the client).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "client/backend.hpp"
#include "client/completion_inbox.hpp"
#include "client/metrics_endpoint.hpp"
#include "client/send_limits.hpp"
#include "common/failure_log.hpp"
#include "common/log.hpp"
#include "common/metrics_registry.hpp"
#include "common/open_handles.hpp"
#include "common/service_url.hpp"
#include "common/sync_call.hpp"
#include "reconsume/client_options.hpp"

namespace reconsume::detail::client {

// Something the client closes when it closes.
class Closeable {
 public:
  virtual ~Closeable() = default;
  virtual void close(Callback<> done) = 0;
  // Closed before the others (producers): a receipt that comes while they close may still lead to
  // work on the others (a move acknowledges its original once its copy is stored).
  virtual bool closesFirst() const { return false; }
};

class ClientImpl : public std::enable_shared_from_this<ClientImpl> {
 public:
  // Throws Error(invalid_argument) for a bad URL or option.
  static std::shared_ptr<ClientImpl> connect(std::string_view serviceUrl, ClientOptions options);
  // A close as close() is, waited for (at most operationTimeout and a margin): every operation
  // still open completes, on the client's threads, before they stop.
  ~ClientImpl();

  Backend& backend() { return *backend_; }
  const std::shared_ptr<Clock>& clock() const { return clock_; }
  // Whether clock() is the system's (SystemClock): its now() is the time the broker's clock and
  // the producers' publish times run on.
  bool systemClock() const { return systemClock_; }
  const Log& log() const { return log_; }
  // Where failed asynchronous calls are warned about, one warning per kind and burst.
  FailureLog& failureLog() { return *failureLog_; }
  const ClientOptions& options() const { return options_; }
  const ServiceUrl& url() const { return url_; }
  // ClientOptions::memoryLimit, shared by every producer of this client.
  const std::shared_ptr<ClientSendLimits>& sendLimits() const { return sendLimits_; }
  // What this client's consumers and producers did (ClientOptions::metricsSink is told too).
  MetricsRegistry& metrics() { return *metrics_; }
  const std::shared_ptr<MetricsRegistry>& metricsPtr() const { return metrics_; }
  // Where ClientOptions::metricsListen serves; "" without an endpoint.
  std::string metricsAddress() const { return endpoint_ ? endpoint_->address() : ""; }
  boost::asio::any_io_executor executor() { return runtime_->io.get_executor(); }
  boost::asio::io_context& io() { return runtime_->io; }
  // Runs `run` on the I/O context with the completions queued with it (completion_inbox.hpp):
  // how the public API's async operations finish.
  void complete(CompletionInbox::Run run) { runtime_->completions.add(std::move(run)); }
  // A blocking call of the public API on this client (refused on its I/O threads: sync_call.hpp).
  BlockingCall blocking(std::string_view name, std::string_view asyncForm = {}) {
    return {runtime_->io, name, asyncForm};
  }

  // Registers an object to close with the client; fails with errc::closed once the client is
  // closing (the caller then closes the object itself).
  Status track(const std::shared_ptr<Closeable>& object);
  bool closed() const;

  // Closes every object, gracefully for at most operationTimeout (receipts of what was sent, the
  // broker's answers to the closes), then shuts the backend down: what is still in flight
  // completes with errc::closed. `done` once all of it completed — for a second close too, which
  // waits for the first.
  void close(Callback<> done);

 private:
  ClientImpl(ServiceUrl url, ClientOptions options);
  // The deleter of every ClientImpl: never on one of its own threads (see the destructor).
  static void release(ClientImpl* client) noexcept;
  bool onOwnThread() const;
  void stopThreads();
  void drainThenStopThreads();

  // How much longer than operationTimeout the destructor waits for its close.
  static constexpr std::chrono::seconds kCloseMargin{5};

  ServiceUrl url_;
  ClientOptions options_;
  Log log_;
  std::shared_ptr<Clock> clock_;
  bool systemClock_ = false;
  // The I/O context and its threads. Each thread holds it too: when the last handle is dropped by
  // a handler on one of these threads, the context must outlive that thread's run().
  struct Runtime {
    explicit Runtime(int threads)
        : io(threads),
          work(io.get_executor()),
          strand(io.get_executor()),
          closeGrace(strand),
          completions(io) {}
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;
    // How long close() lets objects close gracefully; on a strand, since the close that ends
    // early cancels it from any thread. Declared after `io`: it must go first.
    boost::asio::strand<boost::asio::io_context::executor_type> strand;
    boost::asio::steady_timer closeGrace;
    // After `io`, so it goes first: a drain still queued in the context never runs then.
    CompletionInbox completions;
    std::vector<std::thread> threads;
  };
  std::shared_ptr<Runtime> runtime_;
  std::shared_ptr<FailureLog> failureLog_;  // its bursts end on runtime_'s context
  std::shared_ptr<ClientSendLimits> sendLimits_;
  std::shared_ptr<MetricsRegistry> metrics_;
  std::shared_ptr<MetricsEndpoint> endpoint_;  // null without ClientOptions::metricsListen
  std::shared_ptr<Backend> backend_;

  OpenHandles<Closeable> open_;
  std::mutex closeMutex_;
  bool closeFinished_ = false;            // guarded by closeMutex_
  std::vector<Callback<>> closeWaiters_;  // later closes waiting for the first; closeMutex_
};

}  // namespace reconsume::detail::client
