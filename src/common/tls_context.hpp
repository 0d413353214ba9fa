// The OpenSSL client context built from TlsOptions, shared by the HTTP admin transport and the
// binary protocol's connections: TLS 1.2 or newer, the CA file (else the system store) to verify
// the peer, and an optional client certificate.
//
// Thread safety: the returned context is read-only once built and may be shared by any number of
// streams on any threads.
#pragma once

#include <memory>
#include <string>

#include "reconsume/tls_options.hpp"

namespace boost::asio::ssl {
class context;
}

namespace reconsume::detail {

// Reads the CA file and the client certificate now; throws Error(invalid_argument) naming a file
// that cannot be loaded, or naming the missing half of a certificate/key pair.
std::shared_ptr<boost::asio::ssl::context> makeTlsClientContext(const TlsOptions& tls);

// "127.0.0.1" and "::1" are addresses; "localhost" is a name (SNI and host-name checks differ).
bool isIpAddress(const std::string& host);

// The text of a failed TLS handshake: OpenSSL's error, plus the certificate verification result
// when there is one ("certificate verify failed: self-signed certificate in certificate chain").
std::string tlsFailureText(const std::string& opensslMessage, long verifyResult);

}  // namespace reconsume::detail
