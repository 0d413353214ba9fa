// HTTP/1.1 requests to Pulsar's admin API over http:// or https:// (Boost.Beast, OpenSSL), one
// fresh connection per request, each bounded by a deadline, following the broker's redirects to
// the topic's owner.
//
// Thread safety: request() may be called from several threads at once (each call runs its own
// io_context; the shared SSL_CTX is read-only once made, and made under a lock).
#pragma once

#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "common/service_url.hpp"
#include "common/status.hpp"
#include "reconsume/tls_options.hpp"

namespace boost::asio::ssl {
class context;
}

namespace reconsume::detail::admin {

struct Endpoint {
  bool tls{false};
  std::string host;  // a name, an IPv4 address or a bracketed IPv6 address
  std::uint16_t port{0};

  // The host and port of an http:// or https:// URL (the caller has checked its kind).
  static Endpoint of(const ServiceUrl& url);
  std::string toString() const;  // "https://host:port"
};

struct Request {
  boost::beast::http::verb method{boost::beast::http::verb::get};
  std::string target;  // path and query
  std::string body;    // sent as application/json when not empty
  // When set, the body of a 2xx answer is handed to it piece by piece as it arrives, and
  // Response::body stays empty: a large answer (a broker's Prometheus metrics, megabytes) is never
  // held whole. Other answers' bodies still go to Response::body. Called on the requesting thread.
  std::function<void(std::string_view piece)> bodySink;
};

struct Response {
  unsigned status{0};
  std::string reasonPhrase;
  std::string body;
};

class Transport {
 public:
  using Clock = std::chrono::steady_clock;

  // Reads the CA file and the client certificate now when `tls` names them; throws
  // Error(invalid_argument) naming a file that cannot be loaded. Without files, the system's CA
  // store is loaded at the first https request, so that a Transport that only speaks http never
  // loads it (OpenSSL's parsed store is about 4 MiB of resident memory). An empty token sends no
  // Authorization header.
  Transport(const TlsOptions& tls, std::string token);
  ~Transport();

  // Sends `request` to `endpoint` and follows up to 5 redirects (301, 302, 307, 308: the same
  // method and body to the Location). A failed Status means no usable answer: connection_lost
  // (resolve, connect, reset), timeout (the deadline passed), authentication (the TLS handshake
  // failed: unknown CA, host-name mismatch), protocol_error (not HTTP), invalid_argument (the
  // system's CA store could not be loaded for an https endpoint). Any HTTP status is a success
  // of the transport; the caller judges it (http_status.hpp).
  Status request(const Endpoint& endpoint, Request request, Clock::time_point deadline,
                 Response& response) const;

 private:
  // The TLS context, made now or at the first https request (see the constructor).
  Status tlsContext(boost::asio::ssl::context*& out) const;

  TlsOptions tls_;
  mutable std::mutex tlsMutex_;
  mutable std::shared_ptr<boost::asio::ssl::context> ssl_;  // guarded by tlsMutex_
  std::string token_;
};

}  // namespace reconsume::detail::admin
