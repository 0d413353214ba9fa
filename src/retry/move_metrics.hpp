// The metrics of the moves of one subscription's messages (common/metrics_registry.hpp): retries
// by level and category, dead letters by cause and category, and how long each move took from the
// call to its completion.
//
// Thread safety: every member may be called from several threads at once.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/metrics_registry.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

class MoveMetrics {
 public:
  MoveMetrics(std::shared_ptr<MetricsRegistry> registry, std::string subscription);
  // A move along `route` completed after `took`.
  void moved(const Route& route, std::chrono::duration<double> took);
  // A move nobody called for (a poison message): counted, not timed.
  void counted(const Route& route) { counterFor(route)->add(); }

 private:
  std::shared_ptr<Counter> counterFor(const Route& route);

  const std::shared_ptr<MetricsRegistry> registry_;
  const std::string subscription_;
  const std::shared_ptr<Histogram> duration_;
  std::mutex mutex_;
  // Series already looked up, by "<destination>|<level or cause>|<category>".
  std::map<std::string, std::shared_ptr<Counter>> counters_;
};

}  // namespace reconsume::detail::retry
