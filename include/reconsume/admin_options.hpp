// AdminOptions: how an Admin reaches Pulsar's admin REST API.
//
// Thread safety: a plain value.
#pragma once

#include <chrono>
#include <string>

#include "reconsume/tls_options.hpp"

namespace reconsume {

struct AdminOptions {
  std::string token;
  TlsOptions tls;
  std::chrono::milliseconds timeout{30'000};
};

}  // namespace reconsume
