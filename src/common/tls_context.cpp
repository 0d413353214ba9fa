#include "common/tls_context.hpp"

#include <openssl/x509.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/context.hpp>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

namespace ssl = boost::asio::ssl;
using boost::system::error_code;

void loadOrFail(bool ok, const std::string& what, const std::string& file, const error_code& ec) {
  if (!ok) {
    throw Error(errc::invalid_argument,
                "cannot load the " + what + " '" + file + "': " + ec.message());
  }
}

}  // namespace

std::shared_ptr<ssl::context> makeTlsClientContext(const TlsOptions& tls) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  error_code ec;
  if (tls.caFile.empty()) {
    context->set_default_verify_paths(ec);
    loadOrFail(!ec, "system CA store", "(default paths)", ec);
  } else {
    context->load_verify_file(tls.caFile, ec);
    loadOrFail(!ec, "CA file", tls.caFile, ec);
  }
  if (!tls.certFile.empty() || !tls.keyFile.empty()) {
    if (tls.certFile.empty() || tls.keyFile.empty()) {
      throw Error(errc::invalid_argument,
                  "a client certificate needs both certFile and keyFile (got '" + tls.certFile +
                      "' and '" + tls.keyFile + "')");
    }
    context->use_certificate_chain_file(tls.certFile, ec);
    loadOrFail(!ec, "client certificate", tls.certFile, ec);
    context->use_private_key_file(tls.keyFile, ssl::context::pem, ec);
    loadOrFail(!ec, "client key", tls.keyFile, ec);
  }
  return context;
}

bool isIpAddress(const std::string& host) {
  error_code ec;
  boost::asio::ip::make_address(host, ec);
  return !ec;
}

std::string tlsFailureText(const std::string& opensslMessage, long verifyResult) {
  std::string text = opensslMessage;
  if (verifyResult != X509_V_OK)
    text += std::string(": ") + X509_verify_cert_error_string(verifyResult);
  return text;
}

}  // namespace reconsume::detail
