// ClientOptions: how a Client connects and runs (Client::connect checks them).
//
// Thread safety: a plain value.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "reconsume/clock.hpp"
#include "reconsume/logging.hpp"
#include "reconsume/metrics.hpp"
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
  // Bytes (payload, keys and properties) that every producer of this client together may hold
  // between send and the broker's receipt, the retry layer's retry and dead-letter producers
  // included: the Java client's memoryLimit. A send without room waits or fails at once as its
  // producer's blockIfQueueFull says (see ProducerOptions). 0: no limit.
  std::size_t memoryLimit{64 * 1024 * 1024};
  Logger logger;  // null: warnings and errors to stderr
  LogLevel logLevel{LogLevel::info};
  // Metrics (metrics.hpp). `metricsSink` is told of every change as it happens (null: none).
  // `metricsListen` serves them in Prometheus's text format at http://<address>/metrics:
  // "127.0.0.1:9464", "[::1]:9464", ":9464" (loopback), port 0 for any free one
  // (Client::metricsAddress says which); "" (the default): no endpoint. An address that is not a
  // loopback one needs `metricsAllowRemote`, so that nothing is exposed by accident. Client::close
  // returns once the address is no longer listened on.
  std::shared_ptr<MetricsSink> metricsSink;
  std::string metricsListen;
  bool metricsAllowRemote{false};
};

}  // namespace reconsume
