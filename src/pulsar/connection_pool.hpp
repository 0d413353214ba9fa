// One Connection per broker address (logical and physical), made on first use and kept for the
// life of the backend. A connection that became unusable (closed, or refused our credentials) is
// replaced by a fresh one on the next get(), so a later attempt tries again.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pulsar/connection.hpp"

namespace reconsume::detail::pulsar {

class ConnectionPool {
 public:
  ConnectionPool(IoExecutor executor, std::shared_ptr<const ConnectionOptions> options);

  std::shared_ptr<Connection> get(const BrokerAddress& address);
  // Closes every connection; later get()s return closed connections (their requests fail with
  // errc::closed).
  void close();
  const ConnectionOptions& options() const { return *options_; }

 private:
  IoExecutor executor_;
  std::shared_ptr<const ConnectionOptions> options_;
  std::mutex mutex_;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<Connection>> connections_;
};

}  // namespace reconsume::detail::pulsar
