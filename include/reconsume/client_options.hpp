// ClientOptions: how a Client connects and runs (Client::connect checks them).
//
// Thread safety: a plain value.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "reconsume/clock.hpp"
#include "reconsume/logging.hpp"
#include "reconsume/tls_options.hpp"

namespace reconsume {

struct ClientOptions {
  std::shared_ptr<Clock>
      clock;  // null: SystemClock; the embedded broker and consumer timers use it
  TlsOptions tls;
  std::string token;                           // token authentication ("" : none)
  std::function<std::string()> tokenSupplier;  // called at each (re)connect; overrides token
  std::chrono::milliseconds operationTimeout{30'000};
  std::chrono::milliseconds connectionTimeout{10'000};
  std::chrono::milliseconds keepAliveInterval{30'000};
  int ioThreads{1};
  Logger logger;  // null: warnings and errors to stderr
  LogLevel logLevel{LogLevel::info};
};

}  // namespace reconsume
