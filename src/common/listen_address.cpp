#include "common/listen_address.hpp"

#include <charconv>

#include "reconsume/error.hpp"

namespace reconsume::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

tcp::endpoint parseListenAddress(std::string_view text, std::string_view what) {
  auto bad = [&](const char* why) {
    throw Error(errc::invalid_argument,
                std::string(what) + " '" + std::string(text) + "' is invalid: " + why);
  };
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) bad("expected host:port, e.g. 127.0.0.1:9464");
  std::string host(text.substr(0, colon));
  auto portText = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
  if (ec != std::errc() || end != portText.data() + portText.size() || port > 65535) {
    bad("the port is not a number from 0 to 65535");
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  boost::system::error_code parsed;
  auto address = asio::ip::make_address(host, parsed);
  if (parsed) bad("the host is not an IP address (or localhost)");
  return {address, static_cast<unsigned short>(port)};
}

void listenOn(tcp::acceptor& acceptor, const tcp::endpoint& endpoint, std::string_view text,
              std::string_view what) {
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw Error(errc::unavailable, std::string(what) + " '" + std::string(text) +
                                       "': cannot listen: " + ec.message());
  }
}

std::string hostPortOf(const tcp::endpoint& endpoint) {
  auto address = endpoint.address().to_string();
  if (endpoint.address().is_v6()) address = "[" + address + "]";
  return address + ":" + std::to_string(endpoint.port());
}

}  // namespace reconsume::detail
