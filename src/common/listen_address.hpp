// Listening on an address a user typed ("127.0.0.1:9464", "[::1]:9464", "localhost:9464",
// ":9464" for loopback, port 0 for any free one): the metrics endpoint and the dead-letter
// console share it.
//
// Thread safety: pure functions, except listenOn (it binds the acceptor it is given).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>
#include <string_view>

namespace reconsume::detail {

// Throws Error(invalid_argument) "<what> '<text>' is invalid: ..." for a value that does not parse
// (the host must be an IP address or localhost).
boost::asio::ip::tcp::endpoint parseListenAddress(std::string_view text, std::string_view what);

// Opens, binds and listens; Error(unavailable) "<what> '<text>': cannot listen: <why>" (in use).
void listenOn(boost::asio::ip::tcp::acceptor& acceptor,
              const boost::asio::ip::tcp::endpoint& endpoint, std::string_view text,
              std::string_view what);

// "127.0.0.1:9464", "[::1]:9464": how a browser writes the address in a URL and a Host header.
std::string hostPortOf(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace reconsume::detail
