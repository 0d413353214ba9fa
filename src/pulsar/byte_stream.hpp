// The socket under a connection: plain TCP or TLS over TCP, behind one set of coroutine calls.
// TLS verifies the broker's certificate against the context's CAs and, unless turned off, its
// host name (RFC 2818, with SNI for names).
//
// Thread safety: like an Asio socket — one strand uses it; close() from that strand too.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "common/status.hpp"
#include "pulsar/broker_address.hpp"

namespace reconsume::detail::pulsar {

class ByteStream {
 public:
  using executor_type = boost::asio::any_io_executor;

  // `tls` is used when `address.tls`; it must then not be null.
  ByteStream(executor_type executor, const BrokerAddress& address,
             std::shared_ptr<boost::asio::ssl::context> tls, bool verifyHostname);

  // Resolve, connect (TCP_NODELAY) and, for TLS, the handshake. Failures: connection_lost naming
  // the step and address; authentication for a failed TLS handshake, with OpenSSL's text.
  boost::asio::awaitable<Status> open();
  // Some bytes into `buffer`; 0 with a failed Status at the end or on an error.
  boost::asio::awaitable<std::size_t> readSome(std::span<char> buffer, Status& status);
  boost::asio::awaitable<Status> write(std::string_view bytes);
  // The frames one after the other, in one gathering write (as many system calls as the kernel
  // needs).
  boost::asio::awaitable<Status> write(const std::vector<Bytes>& frames);
  // Aborts every pending operation; idempotent.
  void close();
  // Cancels a resolve in progress (close() cannot reach it).
  void cancel();

 private:
  Status failure(const char* step, const boost::system::error_code& ec) const;

  BrokerAddress address_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::ip::tcp::socket socket_;
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  bool closed_ = false;
};

}  // namespace reconsume::detail::pulsar
