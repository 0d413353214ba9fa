// TLS settings of a client or an admin connection (pulsar+ssl://, https://).
//
// Thread safety: a plain value.
#pragma once

#include <string>

namespace reconsume {

struct TlsOptions {
  std::string caFile;             // PEM file of trusted CAs; empty: the system's default store
  bool verifyHostname{true};      // check the broker certificate's name against the URL's host
  std::string certFile, keyFile;  // client certificate (mutual TLS), optional
};

}  // namespace reconsume
