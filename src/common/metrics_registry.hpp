// The live metrics of one client (include/reconsume/metrics.hpp): series made once where the thing
// they count is made (a consumer's topic, a producer), then bumped with one atomic add on the
// path of each message; the application's MetricsSink, if any, is told of every change.
//
// Thread safety: every member may be called from several threads at once. The sink is called
// with no lock held.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "reconsume/metrics.hpp"

namespace reconsume::detail {

// The bounds every histogram shares (seconds): 10 µs to 10,000 s, 14 per decade at 1, 1.25, 1.5,
// 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8 and 9 — no bucket wider than a quarter of its lower bound.
const std::vector<double>& histogramBounds();
// The ones a Prometheus endpoint shows: 1, 2.5 and 5 of each decade.
bool isExposedBound(std::size_t index);
// The bucket of `value` (which must not be negative or NaN): the index of the first bound not
// below it, histogramBounds().size() above the last — what std::lower_bound gives, without its
// search (a slot table; metrics_registry.cpp).
std::size_t histogramBucket(double value);

class Counter {
 public:
  Counter(MetricSeries series, std::shared_ptr<MetricsSink> sink)
      : series_(std::move(series)), sink_(std::move(sink)) {}
  void add(std::uint64_t delta = 1) {
    value_.fetch_add(delta, std::memory_order_relaxed);
    if (sink_) sink_->add(series_, delta);
  }
  std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }
  const MetricSeries& series() const { return series_; }

 private:
  const MetricSeries series_;
  const std::shared_ptr<MetricsSink> sink_;
  std::atomic<std::uint64_t> value_{0};
};

class Histogram {
 public:
  Histogram(MetricSeries series, std::shared_ptr<MetricsSink> sink);
  // A negative value counts as 0.
  void record(double value);
  HistogramData data() const;
  const MetricSeries& series() const { return series_; }

 private:
  const MetricSeries series_;
  const std::shared_ptr<MetricsSink> sink_;
  // No separate total: data() sums the buckets, and one atomic add fewer per record.
  std::vector<std::atomic<std::uint64_t>> counts_;
  std::atomic<double> sum_{0};
};

// What a metric is, apart from its labels.
struct MetricKindInfo {
  const char* name;
  const char* unit;
  const char* description;
  MetricKind kind;
};

class MetricsRegistry {
 public:
  explicit MetricsRegistry(std::shared_ptr<MetricsSink> sink = nullptr) : sink_(std::move(sink)) {}

  // The series of `metric` with `labels` (any order; made on first use). The same object for the
  // same labels, so a series counts on when the consumer that made it is made again.
  std::shared_ptr<Counter> counter(const MetricKindInfo& metric, MetricLabels labels);
  std::shared_ptr<Histogram> histogram(const MetricKindInfo& metric, MetricLabels labels);

  MetricsSnapshot snapshot() const;

 private:
  MetricSeries seriesOf(const MetricKindInfo& metric, MetricLabels labels) const;

  const std::shared_ptr<MetricsSink> sink_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Counter>> counters_;
  std::vector<std::shared_ptr<Histogram>> histograms_;
};

// The metrics the library records (README.md "Metrics").
namespace metrics {
extern const MetricKindInfo kConsumed;          // messaging.client.consumed.messages
extern const MetricKindInfo kSent;              // messaging.client.sent.messages
extern const MetricKindInfo kAcknowledged;      // reconsume.client.acknowledged.messages
extern const MetricKindInfo kNegativelyAcked;   // reconsume.client.negatively_acknowledged.messages
extern const MetricKindInfo kRetries;           // reconsume.retries
extern const MetricKindInfo kDeadLetters;       // reconsume.dead_letters
extern const MetricKindInfo kReconnects;        // reconsume.client.reconnects
extern const MetricKindInfo kMoveDuration;      // reconsume.retry.duration
extern const MetricKindInfo kDeliveryLateness;  // reconsume.delivery.lateness
extern const MetricKindInfo kOperationDuration;  // messaging.client.operation.duration

// Label names.
inline constexpr const char* kSystem = "messaging.system";  // always "pulsar"
inline constexpr const char* kDestination = "messaging.destination.name";
inline constexpr const char* kGroup = "messaging.consumer.group.name";
// A partition's series: kDestination names its topic, this label the partition's index.
inline constexpr const char* kPartition = "messaging.destination.partition.id";
inline constexpr const char* kErrorType = "error.type";
inline constexpr const char* kOperation = "messaging.operation.name";  // send | ack
inline constexpr const char* kServer = "server.address";
inline constexpr const char* kLevel = "reconsume.retry.level";
inline constexpr const char* kCategory = "reconsume.category";
inline constexpr const char* kCause = "reconsume.dead_letter.cause";

// The value of error.type for a failure: the errc's name ("timeout", "connection_lost", ...),
// "_OTHER" for a code of another category.
std::string_view errorType(const std::error_code& code);
}  // namespace metrics

}  // namespace reconsume::detail
