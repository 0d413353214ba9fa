// HTTP/1.1 requests to Pulsar's admin API over http:// or https:// (Boost.Beast, OpenSSL), one
// fresh connection per request, each bounded by a deadline, following the broker's redirects to
// the topic's owner.
//
// Thread safety: a Transport is immutable after construction; request() may be called from
// several threads at once (each call runs its own io_context; the shared SSL_CTX is read-only).
#pragma once

#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

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

  std::string toString() const;  // "https://host:port"
};

struct Request {
  boost::beast::http::verb method{boost::beast::http::verb::get};
  std::string target;  // path and query
  std::string body;    // sent as application/json when not empty
};

struct Response {
  unsigned status{0};
  std::string reasonPhrase;
  std::string body;
};

class Transport {
 public:
  using Clock = std::chrono::steady_clock;

  // Reads the CA file and the client certificate now; throws Error(invalid_argument) naming a file
  // that cannot be loaded. An empty token sends no Authorization header.
  Transport(const TlsOptions& tls, std::string token);
  ~Transport();

  // Sends `request` to `endpoint` and follows up to 5 redirects (301, 302, 307, 308: the same
  // method and body to the Location). A failed Status means no usable answer: connection_lost
  // (resolve, connect, reset), timeout (the deadline passed), authentication (the TLS handshake
  // failed: unknown CA, host-name mismatch), protocol_error (not HTTP). Any HTTP status is a
  // success of the transport; the caller judges it (http_status.hpp).
  Status request(const Endpoint& endpoint, Request request, Clock::time_point deadline,
                 Response& response) const;

 private:
  std::shared_ptr<boost::asio::ssl::context> ssl_;
  bool verifyHostname_;
  std::string token_;
};

}  // namespace reconsume::detail::admin
