#include "admin/http_transport.hpp"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/url/parse.hpp>
#include <optional>

#include "common/tls_context.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::admin {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr int kMaxRedirects = 5;
constexpr std::uint64_t kMaxBody = 64 * 1024 * 1024;  // stats of a namespace's worth of topics

// What the exchange was doing when it stopped: named in every error.
enum class Step { resolve, connect, handshake, write, read };

const char* describe(Step step) {
  switch (step) {
    case Step::resolve:
      return "resolving the host";
    case Step::connect:
      return "connecting";
    case Step::handshake:
      return "the TLS handshake";
    case Step::write:
      return "sending the request";
    case Step::read:
      return "reading the response";
  }
  return "?";
}

// Host names in URLs bracket IPv6 addresses; the resolver and certificate checks want them bare.
std::string bareHost(const std::string& host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

// One request over one connection: a coroutine on a private io_context.
class Exchange {
 public:
  Exchange(const Endpoint& endpoint, const bhttp::request<bhttp::string_body>& request,
           asio::ssl::context* ssl, bool verifyHostname,
           const std::function<void(std::string_view)>& sink)
      : endpoint_(endpoint),
        host_(bareHost(endpoint.host)),
        request_(request),
        sink_(sink),
        resolver_(io_),
        tcp_(io_) {
    if (endpoint.tls) {
      tls_.emplace(tcp_, *ssl);
      tls_->set_verify_mode(asio::ssl::verify_peer);
      if (verifyHostname) tls_->set_verify_callback(asio::ssl::host_name_verification(host_));
      // Server name indication is for names only (RFC 6066).
      if (!isIpAddress(host_)) SSL_set_tlsext_host_name(tls_->native_handle(), host_.c_str());
    }
  }

  Status run(Transport::Clock::time_point deadline, Response& response, std::string& location) {
    bool finished = false;
    std::exception_ptr thrown;
    asio::co_spawn(io_, talk(response, location), [&](std::exception_ptr e) {
      finished = true;
      thrown = e;
    });
    io_.run_until(deadline);
    if (!finished) {
      // Abort whatever is pending; the coroutine then ends with operation_aborted.
      resolver_.cancel();
      error_code ignored;
      tcp_.socket().close(ignored);
      io_.restart();
      io_.run();
      return Status(errc::timeout, endpoint_.toString() + " did not answer " + target() +
                                       " in time (while " + describe(step_) + ")");
    }
    if (thrown) return Status::fromException(thrown);
    return failure();
  }

 private:
  asio::awaitable<void> talk(Response& response, std::string& location) {
    step_ = Step::resolve;
    auto endpoints = co_await resolver_.async_resolve(
        host_, std::to_string(endpoint_.port), asio::redirect_error(asio::use_awaitable, ec_));
    if (ec_) co_return;
    step_ = Step::connect;
    co_await tcp_.async_connect(endpoints, asio::redirect_error(asio::use_awaitable, ec_));
    if (ec_) co_return;
    if (tls_) {
      step_ = Step::handshake;
      co_await tls_->async_handshake(asio::ssl::stream_base::client,
                                     asio::redirect_error(asio::use_awaitable, ec_));
      if (ec_) co_return;
      co_await converse(*tls_, response, location);
    } else {
      co_await converse(tcp_, response, location);
    }
    // The request asked the server to close the connection; what follows the response is moot.
  }

  template <class Stream>
  asio::awaitable<void> converse(Stream& stream, Response& response, std::string& location) {
    step_ = Step::write;
    co_await bhttp::async_write(stream, request_, asio::redirect_error(asio::use_awaitable, ec_));
    if (ec_) co_return;
    step_ = Step::read;
    beast::flat_buffer buffer;
    if (sink_) {
      co_await readInPieces(stream, buffer, response, location);
      co_return;
    }
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(kMaxBody);
    co_await bhttp::async_read(stream, buffer, parser,
                               asio::redirect_error(asio::use_awaitable, ec_));
    if (ec_) co_return;
    auto& answer = parser.get();
    response.body = std::move(answer.body());
    takeHeader(answer, response, location);
  }

  // The answer's body through a fixed buffer: a 2xx body to the sink, any other to the response.
  template <class Stream>
  asio::awaitable<void> readInPieces(Stream& stream, beast::flat_buffer& buffer, Response& response,
                                     std::string& location) {
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.body_limit(boost::none);  // nothing is held: no limit to keep
    co_await bhttp::async_read_header(stream, buffer, parser,
                                      asio::redirect_error(asio::use_awaitable, ec_));
    if (ec_) co_return;
    takeHeader(parser.get(), response, location);
    const bool toSink = response.status / 100 == 2;
    char piece[16 * 1024];
    while (!parser.is_done()) {
      parser.get().body().data = piece;
      parser.get().body().size = sizeof piece;
      co_await bhttp::async_read(stream, buffer, parser,
                                 asio::redirect_error(asio::use_awaitable, ec_));
      if (ec_ == bhttp::error::need_buffer) ec_ = {};  // the piece is full: hand it on
      if (ec_) co_return;
      std::string_view got(piece, sizeof piece - parser.get().body().size);
      if (toSink) {
        sink_(got);
      } else if (response.body.size() + got.size() <= kMaxBody) {
        response.body.append(got);
      }
    }
  }

  template <class Header>
  static void takeHeader(const Header& answer, Response& response, std::string& location) {
    response.status = answer.result_int();
    response.reasonPhrase = std::string(answer.reason());
    if (auto it = answer.find(bhttp::field::location); it != answer.end()) {
      location = std::string(it->value());
    }
  }

  Status failure() {
    if (!ec_) return {};
    std::string where = endpoint_.toString() + " (" + target() + ", while " + describe(step_) + ")";
    if (step_ == Step::handshake && ec_.category() == asio::error::get_ssl_category()) {
      std::string detail =
          tlsFailureText(ec_.message(), SSL_get_verify_result(tls_->native_handle()));
      return Status(errc::authentication, "TLS handshake with " + where + " failed: " + detail);
    }
    if (step_ == Step::read && ec_.category() == error_code(bhttp::error::bad_version).category() &&
        ec_ != bhttp::error::end_of_stream) {
      return Status(errc::protocol_error,
                    "malformed HTTP answer from " + where + ": " + ec_.message());
    }
    return Status(errc::connection_lost, "HTTP request to " + where + " failed: " + ec_.message());
  }

  std::string target() const {
    return std::string(request_.method_string()) + ' ' + std::string(request_.target());
  }

  const Endpoint& endpoint_;
  std::string host_;
  const bhttp::request<bhttp::string_body>& request_;
  const std::function<void(std::string_view)>& sink_;
  asio::io_context io_{1};
  tcp::resolver resolver_;
  beast::tcp_stream tcp_;
  std::optional<beast::ssl_stream<beast::tcp_stream&>> tls_;
  Step step_{Step::resolve};
  error_code ec_;
};

// Where a redirect points: an absolute URL (another broker) or a path on the same endpoint.
Status followLocation(const std::string& location, Endpoint& endpoint, std::string& target) {
  auto parsed = boost::urls::parse_uri_reference(location);
  if (!parsed) {
    return Status(errc::protocol_error, "redirect to an unreadable location '" + location + "'");
  }
  if (parsed->has_scheme()) {
    std::string scheme(parsed->scheme());
    if (scheme != "http" && scheme != "https") {
      return Status(errc::protocol_error,
                    "redirect to a location that is not http(s): '" + location + "'");
    }
    endpoint.tls = scheme == "https";
    endpoint.host = std::string(parsed->encoded_host());
    endpoint.port = parsed->has_port() ? parsed->port_number() : (endpoint.tls ? 443 : 80);
  }
  target = std::string(parsed->encoded_path());
  if (target.empty()) target = "/";
  if (parsed->has_query()) target += '?' + std::string(parsed->encoded_query());
  return {};
}

}  // namespace

Endpoint Endpoint::of(const ServiceUrl& url) {
  return {url.kind == ServiceUrl::Kind::https, url.host, url.port};
}

std::string Endpoint::toString() const {
  return std::string(tls ? "https://" : "http://") + host + ':' + std::to_string(port);
}

Transport::Transport(const TlsOptions& tls, std::string token)
    : tls_(tls), token_(std::move(token)) {
  if (!tls.caFile.empty() || !tls.certFile.empty() || !tls.keyFile.empty()) {
    ssl_ = makeTlsClientContext(tls);
  }
}

Transport::~Transport() = default;

Status Transport::tlsContext(asio::ssl::context*& out) const {
  std::lock_guard lock(tlsMutex_);
  if (!ssl_) {
    try {
      ssl_ = makeTlsClientContext(tls_);
    } catch (const Error& e) {
      return Status(e.code(), e.what());
    }
  }
  out = ssl_.get();
  return {};
}

Status Transport::request(const Endpoint& start, Request request, Clock::time_point deadline,
                          Response& response) const {
  Endpoint endpoint = start;
  for (int hop = 0;; ++hop) {
    bhttp::request<bhttp::string_body> message(request.method, request.target, 11);
    bool defaultPort = endpoint.port == (endpoint.tls ? 443 : 80);
    message.set(bhttp::field::host,
                defaultPort ? endpoint.host : endpoint.host + ':' + std::to_string(endpoint.port));
    message.set(bhttp::field::user_agent, "reconsume-admin");
    message.set(bhttp::field::accept, "application/json");
    if (!token_.empty()) message.set(bhttp::field::authorization, "Bearer " + token_);
    if (!request.body.empty()) {
      message.set(bhttp::field::content_type, "application/json");
      message.body() = request.body;
    }
    message.keep_alive(false);
    message.prepare_payload();

    response = Response{};
    std::string location;
    asio::ssl::context* ssl = nullptr;
    if (endpoint.tls) {
      if (Status status = tlsContext(ssl); !status) return status;
    }
    Exchange exchange(endpoint, message, ssl, tls_.verifyHostname, request.bodySink);
    if (Status status = exchange.run(deadline, response, location); !status) return status;

    bool redirect = response.status == 301 || response.status == 302 || response.status == 307 ||
                    response.status == 308;
    if (!redirect || location.empty()) return {};
    if (hop == kMaxRedirects) {
      return Status(errc::broker_error, std::string(message.method_string()) + ' ' +
                                            request.target + ": more than " +
                                            std::to_string(kMaxRedirects) + " redirects");
    }
    if (Status status = followLocation(location, endpoint, request.target); !status) {
      return status;
    }
  }
}

}  // namespace reconsume::detail::admin
