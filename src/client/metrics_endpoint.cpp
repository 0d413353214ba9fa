#include "client/metrics_endpoint.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>

#include "common/awaitable_tuple.hpp"
#include "common/listen_address.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

tcp::endpoint parseListen(std::string_view listen, bool allowRemote) {
  auto endpoint = parseListenAddress(listen, "ClientOptions::metricsListen");
  if (!endpoint.address().is_loopback() && !allowRemote) {
    throw Error(errc::invalid_argument,
                "ClientOptions::metricsListen '" + std::string(listen) +
                    "' is invalid: it is not a loopback address; set "
                    "ClientOptions::metricsAllowRemote to serve metrics to other machines");
  }
  return endpoint;
}

class Server final : public MetricsEndpoint, public std::enable_shared_from_this<Server> {
 public:
  Server(asio::io_context& io, std::function<std::string()> render)
      : strand_(asio::make_strand(io)), acceptor_(strand_), render_(std::move(render)) {}

  void listen(const tcp::endpoint& endpoint, std::string_view listenText) {
    listenOn(acceptor_, endpoint, listenText, "ClientOptions::metricsListen");
    address_ = hostPortOf(acceptor_.local_endpoint());
  }

  void run() {
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->acceptLoop(); }, asio::detached);
  }

  std::string address() const override { return address_; }

  void stop(std::function<void()> stopped) override {
    asio::post(strand_, [self = shared_from_this(), stopped = std::move(stopped)] {
      self->stopped_ = true;
      boost::system::error_code ignored;
      self->acceptor_.close(ignored);
      for (auto& weak : self->open_) {
        if (auto stream = weak.lock()) stream->socket().close(ignored);
      }
      self->open_.clear();
      stopped();
    });
  }

 private:
  asio::awaitable<void> acceptLoop() {
    while (!stopped_) {
      auto [ec, socket] = co_await acceptor_.async_accept(asTuple);
      if (ec) {
        if (stopped_ || ec == asio::error::operation_aborted) co_return;
        continue;  // a client that went away while being accepted
      }
      auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
      std::erase_if(open_, [](const auto& weak) { return weak.expired(); });
      open_.push_back(stream);
      asio::co_spawn(strand_, serve(stream), asio::detached);
    }
  }

  asio::awaitable<void> serve(std::shared_ptr<beast::tcp_stream> stream) {
    beast::flat_buffer buffer;
    for (;;) {
      http::request<http::string_body> request;
      stream->expires_after(std::chrono::seconds(10));
      auto [readError, bytes] = co_await http::async_read(*stream, buffer, request, asTuple);
      if (readError) break;
      auto response = answer(request);
      stream->expires_after(std::chrono::seconds(10));
      auto [writeError, written] = co_await http::async_write(*stream, response, asTuple);
      if (writeError || !request.keep_alive()) break;
    }
    boost::system::error_code ignored;
    stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  http::response<http::string_body> answer(const http::request<http::string_body>& request) {
    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(request.keep_alive());
    response.set(http::field::server, "reconsume");
    std::string target(request.target());
    if (auto query = target.find('?'); query != std::string::npos) target.resize(query);
    if (request.method() != http::verb::get) {
      response.result(http::status::method_not_allowed);
      response.set(http::field::allow, "GET");
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "only GET\n";
    } else if (target == "/metrics") {
      response.result(http::status::ok);
      response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      response.body() = render_();
    } else if (target == "/") {
      response.result(http::status::ok);
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "reconsume metrics: GET /metrics (Prometheus text format)\n";
    } else {
      response.result(http::status::not_found);
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "not found: " + target + " (the metrics are at /metrics)\n";
    }
    response.prepare_payload();
    return response;
  }

  asio::strand<asio::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  const std::function<std::string()> render_;
  std::string address_;
  // Strand state.
  bool stopped_ = false;
  std::vector<std::weak_ptr<beast::tcp_stream>> open_;
};

}  // namespace

std::shared_ptr<MetricsEndpoint> MetricsEndpoint::start(asio::io_context& io,
                                                        std::string_view listen, bool allowRemote,
                                                        std::function<std::string()> render) {
  auto endpoint = parseListen(listen, allowRemote);
  auto server = std::make_shared<Server>(io, std::move(render));
  server->listen(endpoint, listen);
  server->run();
  return server;
}

}  // namespace reconsume::detail::client
