// The metrics of the moves of one subscription's messages (common/metrics_registry.hpp): retries
// by level and category, dead letters by cause and category, and how long each move took from the
// call to its completion.
//
// Thread safety: every member may be called from several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include "common/metrics_registry.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

class MoveMetrics {
 public:
  MoveMetrics(std::shared_ptr<MetricsRegistry> registry, std::string subscription);
  // A move along `route` completed after `took`.
  void moved(const Route& route, std::chrono::duration<double> took);
  // A move nobody called for (a poison message): counted, not timed.
  void counted(const Route& route) { counterFor(route).add(); }

 private:
  Counter& counterFor(const Route& route);  // kept for as long as this object

  const std::shared_ptr<MetricsRegistry> registry_;
  const std::string subscription_;
  const std::shared_ptr<Histogram> duration_;
  // A series of retries (by level, or count without one) or of dead letters (by cause).
  struct SeriesKey {
    bool retry;
    int step;  // the level or count of a retry, the DeadLetterCause of a dead letter
    std::string_view category;
  };
  struct SeriesOrder {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::tie(a.retry, a.step, a.category) < std::tie(b.retry, b.step, b.category);
    }
  };
  struct StoredKey {
    bool retry;
    int step;
    std::string category;
  };

  using Series = std::map<StoredKey, std::shared_ptr<Counter>, SeriesOrder>;

  std::mutex mutex_;
  // Series already looked up: found without building a string on every move. Never erased.
  Series counters_;
  // The last series looked up, found without the lock: a consumer's moves mostly go one way
  // (a table's first level, most of all). Points into counters_.
  std::atomic<const Series::value_type*> last_{nullptr};
};

}  // namespace reconsume::detail::retry
