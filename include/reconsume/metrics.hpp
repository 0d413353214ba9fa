// Metrics: what a client, its consumers and producers did — messages received, acknowledged,
// negatively acknowledged, sent (and failed), retries by level and category, dead letters by
// cause, reconnects — and two histograms: how long a reconsumeLater/deadLetter took, and how late a
// delayed message (a retry) arrived after the time its delay named.
//
// Names and labels follow the OpenTelemetry messaging conventions where they have one
// (messaging.client.consumed.messages, messaging.client.sent.messages, messaging.system,
// messaging.destination.name, messaging.consumer.group.name, error.type, server.address); the rest
// are reconsume.*. README.md "Metrics" lists every series with its labels.
//
// Three ways to read them: Client::metrics() / Consumer::metrics() (a snapshot), a MetricsSink
// (ClientOptions::metricsSink: every change as it happens, for a metrics system of your own), and
// a Prometheus text endpoint (ClientOptions::metricsListen).
//
// Thread safety: the value types are plain values. A MetricsSink is called from the library's
// threads, several at once, never while a lock of the library is held; it must be thread-safe
// and quick (it runs on the path of every message).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace reconsume {

// Label names and values, sorted by name.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

enum class MetricKind { counter, histogram };

// One series: a metric and the values of its labels.
struct MetricSeries {
  std::string name;         // "messaging.client.consumed.messages", "reconsume.retries", ...
  std::string unit;         // "{message}", "{retry}", "s", ... (UCUM, as OpenTelemetry writes it)
  std::string description;  // one sentence
  MetricKind kind = MetricKind::counter;
  MetricLabels labels;

  // The value of label `name`, "" when the series has none.
  std::string label(std::string_view name) const;
};

// A histogram's buckets: counts[i] values were at most bounds[i] (and more than bounds[i-1]); the
// last count, one more than there are bounds, holds the values above the last bound.
struct HistogramData {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;
  std::uint64_t count = 0;
  double sum = 0;

  // The q-quantile (q in [0, 1]) estimated by linear interpolation inside its bucket: within the
  // bucket's width (at most 25% of its bound) of the true value. 0 when empty; the last bound for
  // values above it.
  double quantile(double q) const;
  // Adds `other`'s values (same bounds).
  void merge(const HistogramData& other);
};

struct MetricValue {
  MetricSeries series;
  std::uint64_t count = 0;  // counters
  HistogramData histogram;  // histograms
};

struct MetricsSnapshot {
  std::vector<MetricValue> values;

  // The sum of counter `name` over its series whose labels include every pair of `match`.
  std::uint64_t counter(std::string_view name, const MetricLabels& match = {}) const;
  // Histogram `name` merged over its series whose labels include every pair of `match`.
  HistogramData histogram(std::string_view name, const MetricLabels& match = {}) const;
  // The Prometheus text exposition format (0.0.4): names with '_' for '.', counters with _total,
  // histograms as _bucket (cumulative, le="...") / _sum / _count, with # HELP and # TYPE lines.
  std::string toPrometheusText() const;
};

// Receives every change as it happens (ClientOptions::metricsSink). See the thread-safety note at
// the top: called from the library's threads, must not block.
class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  // A counter went up by `delta`.
  virtual void add(const MetricSeries& series, std::uint64_t delta) = 0;
  // A histogram got `value` (seconds for the durations).
  virtual void record(const MetricSeries& series, double value) = 0;
};

}  // namespace reconsume
