#include "pulsar/byte_stream.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "common/awaitable_tuple.hpp"
#include "common/tls_context.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;
using boost::system::error_code;

ByteStream::ByteStream(executor_type executor, const BrokerAddress& address,
                       std::shared_ptr<asio::ssl::context> tls, bool verifyHostname)
    : address_(address), resolver_(executor), socket_(executor), context_(std::move(tls)) {
  if (address_.tls) {
    tls_.emplace(socket_, *context_);
    tls_->set_verify_mode(asio::ssl::verify_peer);
    SSL* ssl = tls_->native_handle();
    bool ip = isIpAddress(address_.host);
    if (verifyHostname) {
      // OpenSSL's own check (RFC 6125/2818), so a mismatch is reported in its words ("hostname
      // mismatch", "IP address mismatch") through the verification result.
      if (ip) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address_.host.c_str());
      } else {
        SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        SSL_set1_host(ssl, address_.host.c_str());
      }
    }
    // Server name indication is for names only (RFC 6066).
    if (!ip) SSL_set_tlsext_host_name(ssl, address_.host.c_str());
  }
}

Status ByteStream::failure(const char* step, const error_code& ec) const {
  return Status(errc::connection_lost,
                std::string(step) + " " + address_.physical + " failed: " + ec.message());
}

asio::awaitable<Status> ByteStream::open() {
  auto [resolveError, endpoints] =
      co_await resolver_.async_resolve(address_.host, std::to_string(address_.port), asTuple);
  if (resolveError) co_return failure("resolving", resolveError);
  if (closed_) co_return Status(errc::connection_lost, "closed while connecting");
  auto [connectError, endpoint] = co_await asio::async_connect(socket_, endpoints, asTuple);
  if (connectError) co_return failure("connecting to", connectError);
  error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (tls_) {
    auto [handshakeError] = co_await tls_->async_handshake(asio::ssl::stream_base::client, asTuple);
    if (handshakeError) {
      if (handshakeError.category() == asio::error::get_ssl_category()) {
        co_return Status(errc::authentication,
                         "TLS handshake with " + address_.physical + " failed: " +
                             tlsFailureText(handshakeError.message(),
                                            SSL_get_verify_result(tls_->native_handle())));
      }
      co_return failure("the TLS handshake with", handshakeError);
    }
  }
  co_return Status{};
}

asio::awaitable<std::size_t> ByteStream::readSome(std::span<char> buffer, Status& status) {
  error_code ec;
  std::size_t n = 0;
  if (tls_) {
    std::tie(ec, n) =
        co_await tls_->async_read_some(asio::buffer(buffer.data(), buffer.size()), asTuple);
  } else {
    std::tie(ec, n) =
        co_await socket_.async_read_some(asio::buffer(buffer.data(), buffer.size()), asTuple);
  }
  if (ec) {
    status = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated
                 ? Status(errc::connection_lost, address_.physical + " closed the connection")
                 : failure("reading from", ec);
    co_return 0;
  }
  co_return n;
}

asio::awaitable<Status> ByteStream::write(std::string_view bytes) {
  error_code ec;
  if (tls_) {
    std::tie(ec, std::ignore) =
        co_await asio::async_write(*tls_, asio::buffer(bytes.data(), bytes.size()), asTuple);
  } else {
    std::tie(ec, std::ignore) =
        co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()), asTuple);
  }
  if (ec) co_return failure("writing to", ec);
  co_return Status{};
}

asio::awaitable<Status> ByteStream::write(const std::vector<Bytes>& frames) {
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(frames.size());
  for (const auto& frame : frames) buffers.emplace_back(frame.data(), frame.size());
  error_code ec;
  if (tls_) {
    std::tie(ec, std::ignore) = co_await asio::async_write(*tls_, buffers, asTuple);
  } else {
    std::tie(ec, std::ignore) = co_await asio::async_write(socket_, buffers, asTuple);
  }
  if (ec) co_return failure("writing to", ec);
  co_return Status{};
}

void ByteStream::close() {
  closed_ = true;
  resolver_.cancel();
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void ByteStream::cancel() {
  resolver_.cancel();
}

}  // namespace reconsume::detail::pulsar
