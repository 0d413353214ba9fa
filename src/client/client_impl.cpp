#include "client/client_impl.hpp"

#include <atomic>
#include <boost/asio/post.hpp>
#include <future>
#include <system_error>
#include <thread>

#include "common/duration.hpp"
#include "embedded/embedded_backend.hpp"
#include "pulsar/pulsar_backend.hpp"

namespace reconsume::detail::client {

std::shared_ptr<ClientImpl> ClientImpl::connect(std::string_view serviceUrl,
                                                ClientOptions options) {
  auto url = ServiceUrl::parse(serviceUrl);
  if (url.kind == ServiceUrl::Kind::http || url.kind == ServiceUrl::Kind::https) {
    throw Error(errc::invalid_argument,
                "service URL '" + std::string(serviceUrl) +
                    "' is an admin URL; a client connects to embedded://, pulsar:// or "
                    "pulsar+ssl://");
  }
  if (options.ioThreads < 1) {
    throw Error(errc::invalid_argument, "ClientOptions::ioThreads is " +
                                            std::to_string(options.ioThreads) +
                                            "; at least 1 is needed");
  }
  for (auto [name, value] : {std::pair{"operationTimeout", options.operationTimeout},
                             std::pair{"connectionTimeout", options.connectionTimeout},
                             std::pair{"keepAliveInterval", options.keepAliveInterval}}) {
    if (value.count() <= 0) {
      throw Error(errc::invalid_argument, std::string("ClientOptions::") + name + " is " +
                                              std::to_string(value.count()) +
                                              "ms; it must be positive");
    }
    if (auto why = tooLong(value); !why.empty()) {
      throw Error(errc::invalid_argument, std::string("ClientOptions::") + name + " " + why);
    }
  }
  std::shared_ptr<ClientImpl> client(new ClientImpl(std::move(url), std::move(options)),
                                     &ClientImpl::release);
  if (client->url_.kind == ServiceUrl::Kind::embedded) {
    auto connection = embedded::connectEmbedded(client->url_, client->options_.clock);
    client->backend_ = std::move(connection.backend);
    client->clock_ = std::move(connection.clock);
  } else {
    client->clock_ = client->options_.clock ? client->options_.clock : SystemClock::shared();
    client->backend_ = pulsar::connectPulsar(client->url_, client->options_, client->io(),
                                             client->log_, nullptr, client->metrics_);
  }
  client->systemClock_ = dynamic_cast<const SystemClock*>(client->clock_.get()) != nullptr;
  if (!client->options_.metricsListen.empty()) {
    std::weak_ptr<MetricsRegistry> metrics = client->metrics_;
    client->endpoint_ = MetricsEndpoint::start(
        client->io(), client->options_.metricsListen, client->options_.metricsAllowRemote,
        [metrics] {
          auto registry = metrics.lock();
          return registry ? registry->snapshot().toPrometheusText() : std::string();
        });
  }
  return client;
}

ClientImpl::ClientImpl(ServiceUrl url, ClientOptions options)
    : url_(std::move(url)),
      options_(std::move(options)),
      log_(options_.logger, options_.logLevel),
      runtime_(std::make_shared<Runtime>(options_.ioThreads)),
      failureLog_(std::make_shared<FailureLog>(log_, runtime_->io.get_executor())),
      sendLimits_(std::make_shared<ClientSendLimits>(options_.memoryLimit, runtime_->io,
                                                     SteadyClock::real())),
      metrics_(std::make_shared<MetricsRegistry>(options_.metricsSink)) {
  for (int i = 0; i < options_.ioThreads; ++i) {
    runtime_->threads.emplace_back([runtime = runtime_] { runtime->io.run(); });
  }
}

void ClientImpl::release(ClientImpl* client) noexcept {
  if (!client->onOwnThread()) return delete client;
  // The last reference went on one of the client's own threads (a handler dropped the last
  // handle, or a completion that held the client ran): the close the destructor waits for needs
  // this thread back, so the destructor runs on a thread of its own.
  try {
    std::thread([client] { delete client; }).detach();
  } catch (const std::system_error&) {
    delete client;  // no thread to be had: the destructor's close cannot be waited for
  }
}

ClientImpl::~ClientImpl() {
  if (onOwnThread()) {
    // Only when release() could not start a thread: what is still open is closed, and the
    // threads stop without waiting for it.
    if (!closed()) close([](const Status&) {});
    stopThreads();
  } else {
    // The last handle is gone: a close, as close() is, waited for here. Handlers of operations
    // still open (a send waiting for its receipt, an acknowledgement in its group, a completion
    // queued) get their outcome: a future's promise is never broken.
    auto done = std::make_shared<std::promise<void>>();
    auto closedAll = done->get_future();
    close([done](const Status&) { done->set_value(); });
    // close() shuts the backend down after operationTimeout; the margin is for a close that
    // never finished, which must not hold the application's thread for ever.
    closedAll.wait_for(options_.operationTimeout + kCloseMargin);
    drainThenStopThreads();
  }
  failureLog_->flush();  // a summary still pending would never run now
}

bool ClientImpl::onOwnThread() const {
  for (const auto& thread : runtime_->threads) {
    if (thread.get_id() == std::this_thread::get_id()) return true;
  }
  return false;
}

void ClientImpl::drainThenStopThreads() {
  // The stop goes behind what the close queued (the completions of what it ended), so that those
  // run on the client's threads as every completion does; what they queue in turn runs here.
  runtime_->work.reset();
  boost::asio::post(runtime_->io, [runtime = runtime_.get()] { runtime->io.stop(); });
  for (auto& thread : runtime_->threads) thread.join();
  runtime_->io.restart();
  runtime_->io.poll();
}

void ClientImpl::stopThreads() {
  runtime_->work.reset();
  runtime_->io.stop();
  for (auto& thread : runtime_->threads) {
    if (!thread.joinable()) continue;
    if (thread.get_id() == std::this_thread::get_id()) {
      // The last handle was dropped by a handler on this very thread: it finishes its run() and
      // then releases the context (it holds the runtime).
      thread.detach();
    } else {
      thread.join();
    }
  }
}

Status ClientImpl::track(const std::shared_ptr<Closeable>& object) {
  if (!open_.add(object)) return Status(errc::closed, "the client for " + url_.text + " is closed");
  return {};
}

bool ClientImpl::closed() const {
  return open_.closed();
}

void ClientImpl::close(Callback<> done) {
  bool first = false;
  auto objects = open_.closeAll(&first);
  if (!first) {
    // Another close is under way: done when it is.
    {
      std::lock_guard lock(closeMutex_);
      if (!closeFinished_) return closeWaiters_.push_back(std::move(done));
    }
    return done({});
  }
  // Sends waiting for room give up now rather than at their timeout.
  sendLimits_->close(Status(errc::closed, "the client for " + url_.text + " is closed"));
  // Everything below may outlive this object (the destructor closes too): it holds what it uses.
  auto backend = backend_;
  std::weak_ptr<Runtime> runtime = runtime_;
  auto closedAll = [this, self = weak_from_this(), done, failureLog = failureLog_](const Status&) {
    // The failures of what the close ended are told before the close completes.
    failureLog->flush();
    std::vector<Callback<>> waiters;
    if (auto alive = self.lock()) {
      std::lock_guard lock(closeMutex_);
      closeFinished_ = true;
      waiters.swap(closeWaiters_);
    }
    for (auto& waiter : waiters) waiter({});
    done({});
  };
  // The close completes once the backend is closed and the metrics address is no longer listened
  // on (a new client may listen on it then). The two run side by side: when the last handle is
  // dropped, the threads stop right after, and the backend must be closed even if the endpoint's
  // stop never ran.
  auto parts = std::make_shared<std::atomic<int>>(endpoint_ ? 2 : 1);
  auto finished = [parts, closedAll](const Status&) {
    if (--*parts == 0) closedAll({});
  };
  if (endpoint_) endpoint_->stop([finished] { finished({}); });
  // Close every object, then the backend; `done` once all of it completed.
  auto remaining = std::make_shared<std::atomic<std::size_t>>(objects.size() + 1);
  auto finish = [remaining, backend, runtime, finished](const Status&) {
    if (--*remaining != 0) return;
    if (auto r = runtime.lock()) {
      boost::asio::post(r->strand, [runtime] {
        if (auto r = runtime.lock()) r->closeGrace.cancel();
      });
    }
    // No backend when connecting it failed (connect threw): nothing more to close.
    if (backend) {
      backend->close(finished);
    } else {
      finished({});
    }
  };
  // A close that needs the broker (receipts with no sendTimeout, a close request) gets
  // operationTimeout; then the backend's shutdown completes everything still open with closed.
  boost::asio::post(runtime_->strand, [runtime, backend, wait = options_.operationTimeout] {
    auto r = runtime.lock();
    if (!r) return;
    r->closeGrace.expires_after(wait);
    r->closeGrace.async_wait([backend](const boost::system::error_code& ec) {
      if (!ec && backend) backend->close([](const Status&) {});
    });
  });
  // Producers first, the rest once they are closed: a reconsumeLater or dead-letter move whose
  // copy's receipt comes while its producer closes acknowledges its original on a consumer still
  // open, and succeeds instead of reporting acknowledgement_unconfirmed (SPEC.md section 1).
  std::vector<std::shared_ptr<Closeable>> closeFirst, closeThen;
  for (auto& object : objects) {
    (object->closesFirst() ? closeFirst : closeThen).push_back(std::move(object));
  }
  auto closeTheRest = [closeThen = std::move(closeThen), finish] {
    for (const auto& object : closeThen) object->close(finish);
    finish({});
  };
  auto firstLeft = std::make_shared<std::atomic<std::size_t>>(closeFirst.size() + 1);
  auto firstClosed = [firstLeft, closeTheRest] {
    if (--*firstLeft == 0) closeTheRest();
  };
  for (const auto& object : closeFirst) {
    object->close([finish, firstClosed](const Status& status) {
      finish(status);
      firstClosed();
    });
  }
  firstClosed();
}

}  // namespace reconsume::detail::client
