// ClientOptions::metricsListen: a small HTTP server on the client's I/O threads that answers
// GET /metrics with the client's metrics in Prometheus's text format (and / with a pointer to
// it). Loopback unless ClientOptions::metricsAllowRemote; GET only; one request at a time per
// connection, keep-alive, 10 s to send a request before the connection is closed.
//
// Thread safety: start and stop from any thread; the server runs on its own strand.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace reconsume::detail::client {

class MetricsEndpoint {
 public:
  // Listens on `listen` ("127.0.0.1:9464", "[::1]:9464", "localhost:9464", ":9464" for loopback;
  // port 0: any free one) and serves what `render` returns. Throws Error(invalid_argument)
  // naming the value for one that does not parse or is not a loopback address without
  // `allowRemote`, Error(unavailable) naming it when it cannot be listened on (in use).
  static std::shared_ptr<MetricsEndpoint> start(boost::asio::io_context& io,
                                                std::string_view listen, bool allowRemote,
                                                std::function<std::string()> render);
  virtual ~MetricsEndpoint() = default;
  // host:port listened on.
  virtual std::string address() const = 0;
  // Stops accepting and closes open connections; `stopped` runs (on an I/O thread) once the
  // address is no longer listened on, so a client's close completes only after that. Idempotent.
  virtual void stop(std::function<void()> stopped) = 0;
};

}  // namespace reconsume::detail::client
