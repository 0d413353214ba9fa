#include "console/console_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json.hpp>
#include <vector>

#include "common/awaitable_tuple.hpp"
#include "common/listen_address.hpp"
#include "console/console_assets.hpp"

namespace reconsume::tools {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr const char* kCookie = "reconsume_console";

tcp::endpoint parseListen(const std::string& listen, bool haveToken) {
  auto endpoint = detail::parseListenAddress(listen, "--listen");
  if (!endpoint.address().is_loopback() && !haveToken) {
    throw Error(errc::invalid_argument,
                "--listen '" + listen +
                    "' is invalid: other machines could reach it: give --console-token or "
                    "--console-token-file, which every request must then carry");
  }
  return endpoint;
}

// Constant time for equal lengths: the time taken says nothing about how much of a guess was right.
bool sameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

std::string cookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    auto semicolon = header.find(';');
    auto part = header.substr(0, semicolon);
    header =
        semicolon == std::string_view::npos ? std::string_view() : header.substr(semicolon + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
  }
  return "";
}

using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

Response plain(const Request& request, http::status status, std::string contentType,
               std::string body) {
  Response response{status, request.version()};
  response.keep_alive(request.keep_alive());
  response.set(http::field::server, "reconsume");
  response.set(http::field::content_type, contentType);
  response.set(http::field::cache_control, "no-store");
  response.set("Content-Security-Policy",
               "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
  response.set("X-Content-Type-Options", "nosniff");
  response.set("X-Frame-Options", "DENY");
  response.set("Referrer-Policy", "no-referrer");
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

Response jsonError(const Request& request, http::status status, const std::string& message) {
  return plain(request, status, "application/json",
               "{\"error\":" + boost::json::serialize(boost::json::value(message)) + "}");
}

}  // namespace

void checkConsoleListen(const std::string& listen, bool haveToken) {
  parseListen(listen, haveToken);
}

struct ConsoleServer::State : std::enable_shared_from_this<State> {
  State(asio::io_context& io, ConsoleServerOptions options,
        std::function<ConsoleResponse(const ConsoleRequest&)> api)
      : io(io), options(std::move(options)), api(std::move(api)), acceptor(io) {}

  asio::io_context& io;
  ConsoleServerOptions options;
  std::function<ConsoleResponse(const ConsoleRequest&)> api;
  tcp::acceptor acceptor;
  std::string hostPort;  // as a browser writes it in the Host header
  bool stopped = false;
  std::vector<std::weak_ptr<beast::tcp_stream>> open;

  asio::awaitable<void> acceptLoop() {
    while (!stopped) {
      auto [ec, socket] = co_await acceptor.async_accept(detail::asTuple);
      if (ec) {
        if (stopped || ec == asio::error::operation_aborted) co_return;
        continue;
      }
      auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
      std::erase_if(open, [](const auto& weak) { return weak.expired(); });
      open.push_back(stream);
      asio::co_spawn(io, serve(stream), asio::detached);
    }
  }

  asio::awaitable<void> serve(std::shared_ptr<beast::tcp_stream> stream) {
    auto self = shared_from_this();
    beast::flat_buffer buffer;
    for (;;) {
      Request request;
      stream->expires_after(std::chrono::seconds(30));
      http::request_parser<http::string_body> parser;
      parser.body_limit(1024 * 1024);
      auto [readError, bytes] = co_await http::async_read(*stream, buffer, parser, detail::asTuple);
      if (readError) break;
      request = parser.release();
      auto response = answer(request);
      stream->expires_never();
      auto [writeError, written] = co_await http::async_write(*stream, response, detail::asTuple);
      if (writeError || !response.keep_alive()) break;
    }
    boost::system::error_code ignored;
    stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  bool hostAllowed(const Request& request) const {
    auto address = acceptor.local_endpoint().address();
    // Served beyond loopback, it is reached by whatever name the machine has; the token guards it.
    if (!address.is_loopback()) return true;
    std::string host(request[http::field::host]);
    auto port = hostPort.substr(hostPort.rfind(':'));
    return host == hostPort || host == "localhost" + port;
  }

  bool authorised(const Request& request) const {
    if (options.token.empty()) return true;
    std::string_view bearer = request[http::field::authorization];
    if (bearer.starts_with("Bearer ") && sameSecret(bearer.substr(7), options.token)) return true;
    return sameSecret(cookieValue(request[http::field::cookie], kCookie), options.token);
  }

  Response answer(const Request& request) {
    if (!hostAllowed(request)) {
      return plain(request, http::status::misdirected_request, "text/plain; charset=utf-8",
                   "this console answers to " + hostPort + " only\n");
    }
    std::string target(request.target());
    std::string path = target.substr(0, target.find('?'));
    auto query = target.find('?') == std::string::npos
                     ? std::map<std::string, std::string>{}
                     : parseQuery(std::string_view(target).substr(target.find('?') + 1));
    // Opening /?token=… once sets the cookie that carries the token from then on.
    if (path == "/" && query.count("token") && !options.token.empty()) {
      if (!sameSecret(query["token"], options.token)) {
        return plain(request, http::status::unauthorized, "text/plain; charset=utf-8",
                     "wrong token\n");
      }
      auto response = plain(request, http::status::see_other, "text/plain; charset=utf-8", "");
      response.set(http::field::location, "/");
      response.set(http::field::set_cookie, std::string(kCookie) + "=" + options.token +
                                                "; HttpOnly; SameSite=Strict; Path=/");
      return response;
    }
    if (!authorised(request)) {
      return plain(request, http::status::unauthorized, "text/plain; charset=utf-8",
                   "this console needs its token: open /?token=<token> once, or send "
                   "\"Authorization: Bearer <token>\"\n");
    }
    if (!path.starts_with("/api/")) {
      if (request.method() != http::verb::get) {
        return plain(request, http::status::method_not_allowed, "text/plain; charset=utf-8",
                     "use GET\n");
      }
      const auto* asset = consoleAsset(path == "/" ? "/index.html" : path);
      if (asset == nullptr) {
        return plain(request, http::status::not_found, "text/plain; charset=utf-8",
                     "not found: " + path + "\n");
      }
      return plain(request, http::status::ok, std::string(asset->contentType),
                   std::string(asset->content));
    }
    if (request.method() == http::verb::post) {
      std::string_view type = request[http::field::content_type];
      if (!type.starts_with("application/json") || request["X-Reconsume-Console"] != "1") {
        return jsonError(request, http::status::forbidden,
                         "a change must be a JSON request from the console's page");
      }
      std::string_view origin = request[http::field::origin];
      if (!origin.empty() && origin != "http://" + std::string(request[http::field::host])) {
        return jsonError(request, http::status::forbidden,
                         "a change must come from this console's own page");
      }
    }
    ConsoleRequest call{std::string(request.method_string()), path, std::move(query),
                        request.body()};
    auto result = api(call);
    return plain(request, static_cast<http::status>(result.status), "application/json",
                 std::move(result.body));
  }
};

ConsoleServer::ConsoleServer(asio::io_context& io, ConsoleServerOptions options,
                             std::function<ConsoleResponse(const ConsoleRequest&)> api)
    : state_(std::make_shared<State>(io, std::move(options), std::move(api))) {
  auto endpoint = parseListen(state_->options.listen, !state_->options.token.empty());
  detail::listenOn(state_->acceptor, endpoint, state_->options.listen, "--listen");
  state_->hostPort = detail::hostPortOf(state_->acceptor.local_endpoint());
}

ConsoleServer::~ConsoleServer() = default;

std::string ConsoleServer::url() const {
  return "http://" + state_->hostPort + "/";
}

void ConsoleServer::run() {
  asio::co_spawn(
      state_->io, [state = state_] { return state->acceptLoop(); }, asio::detached);
  state_->io.run();
}

void ConsoleServer::stop() {
  asio::post(state_->io, [state = state_] {
    state->stopped = true;
    boost::system::error_code ignored;
    state->acceptor.close(ignored);
    for (auto& weak : state->open) {
      if (auto stream = weak.lock()) stream->socket().close(ignored);
    }
    state->io.stop();
  });
}

}  // namespace reconsume::tools
