#include "common/metrics_registry.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "reconsume/error.hpp"

namespace reconsume::detail {

namespace {

constexpr double kMantissas[] = {1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9};
constexpr int kMantissaCount = sizeof(kMantissas) / sizeof(kMantissas[0]);
constexpr int kFirstExponent = -5;  // 10 µs
constexpr int kLastExponent = 4;    // up to 9,000 s, then 10,000 s

std::vector<double> makeBounds() {
  std::vector<double> bounds;
  for (int exponent = kFirstExponent; exponent < kLastExponent; ++exponent) {
    for (double mantissa : kMantissas) bounds.push_back(mantissa * std::pow(10.0, exponent));
  }
  bounds.push_back(std::pow(10.0, kLastExponent));
  return bounds;
}

}  // namespace

const std::vector<double>& histogramBounds() {
  static const std::vector<double> bounds = makeBounds();
  return bounds;
}

namespace {

// A bucket without a search, for a value recorded on every send, acknowledgement and retry (the
// search's mispredicted branches were most of a record's time). A positive double's bits, read
// as an integer, grow with the value; their top sixteen (sign, exponent and the first four bits
// of the mantissa) cut the line into slots no wider than a sixteenth of an octave, narrower than
// the narrowest bucket (9 to 10 of a decade, a ninth). So a slot holds at most one bound, and the
// bucket is the slot's first candidate, or the one after when the value lies above it.
class BucketTable {
 public:
  explicit BucketTable(const std::vector<double>& bounds) : bounds_(bounds) {
    first_ = slotOf(bounds.front() / 2);
    const auto last = slotOf(bounds.back());
    for (auto slot = first_; slot <= last; ++slot) {
      const double lowest = std::bit_cast<double>(slot << kSlotShift);
      candidates_.push_back(static_cast<std::uint8_t>(
          std::lower_bound(bounds.begin(), bounds.end(), lowest) - bounds.begin()));
    }
  }
  std::size_t operator()(double value) const {
    const auto slot = slotOf(value);
    if (slot < first_) return 0;  // below half the first bound
    const auto index = slot - first_;
    if (index >= candidates_.size()) return bounds_.size();  // above the last bound's slot
    const std::size_t candidate = candidates_[index];
    return candidate + (value > bounds_[candidate] ? 1 : 0);
  }

 private:
  static constexpr int kSlotShift = 48;
  static std::uint64_t slotOf(double value) {
    return std::bit_cast<std::uint64_t>(value) >> kSlotShift;
  }

  const std::vector<double>& bounds_;
  std::uint64_t first_;
  std::vector<std::uint8_t> candidates_;  // 127 bounds: a byte each
};

}  // namespace

std::size_t histogramBucket(double value) {
  static const BucketTable table(histogramBounds());
  return table(value);
}

bool isExposedBound(std::size_t index) {
  if (index + 1 == histogramBounds().size()) return true;
  double mantissa = kMantissas[index % kMantissaCount];
  return mantissa == 1 || mantissa == 2.5 || mantissa == 5;
}

Histogram::Histogram(MetricSeries series, std::shared_ptr<MetricsSink> sink)
    : series_(std::move(series)), sink_(std::move(sink)), counts_(histogramBounds().size() + 1) {}

void Histogram::record(double value) {
  if (!(value > 0)) value = 0;  // negative (clock skew) and NaN count as 0
  counts_[histogramBucket(value)].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  if (sink_) sink_->record(series_, value);
}

HistogramData Histogram::data() const {
  HistogramData data;
  data.bounds = histogramBounds();
  data.counts.reserve(counts_.size());
  for (const auto& count : counts_) data.counts.push_back(count.load(std::memory_order_relaxed));
  // The total from the buckets, so that it agrees with them whatever records run meanwhile.
  for (auto count : data.counts) data.count += count;
  data.sum = sum_.load(std::memory_order_relaxed);
  return data;
}

MetricSeries MetricsRegistry::seriesOf(const MetricKindInfo& metric, MetricLabels labels) const {
  labels.emplace_back(metrics::kSystem, "pulsar");
  std::sort(labels.begin(), labels.end());
  MetricSeries series;
  series.name = metric.name;
  series.unit = metric.unit;
  series.description = metric.description;
  series.kind = metric.kind;
  series.labels = std::move(labels);
  return series;
}

namespace {

// The series in `all` with `series`'s name and labels, added when there is none.
template <typename Series>
std::shared_ptr<Series> findOrAdd(std::vector<std::shared_ptr<Series>>& all, MetricSeries series,
                                  const std::shared_ptr<MetricsSink>& sink) {
  for (const auto& existing : all) {
    if (existing->series().name == series.name && existing->series().labels == series.labels) {
      return existing;
    }
  }
  all.push_back(std::make_shared<Series>(std::move(series), sink));
  return all.back();
}

}  // namespace

std::shared_ptr<Counter> MetricsRegistry::counter(const MetricKindInfo& metric,
                                                  MetricLabels labels) {
  auto series = seriesOf(metric, std::move(labels));
  std::lock_guard lock(mutex_);
  return findOrAdd(counters_, std::move(series), sink_);
}

std::shared_ptr<Histogram> MetricsRegistry::histogram(const MetricKindInfo& metric,
                                                      MetricLabels labels) {
  auto series = seriesOf(metric, std::move(labels));
  std::lock_guard lock(mutex_);
  return findOrAdd(histograms_, std::move(series), sink_);
}

MetricsSnapshot MetricsRegistry::snapshot() const {
  std::vector<std::shared_ptr<Counter>> counters;
  std::vector<std::shared_ptr<Histogram>> histograms;
  {
    std::lock_guard lock(mutex_);
    counters = counters_;
    histograms = histograms_;
  }
  MetricsSnapshot snapshot;
  for (const auto& counter : counters) {
    MetricValue value;
    value.series = counter->series();
    value.count = counter->value();
    snapshot.values.push_back(std::move(value));
  }
  for (const auto& histogram : histograms) {
    MetricValue value;
    value.series = histogram->series();
    value.histogram = histogram->data();
    snapshot.values.push_back(std::move(value));
  }
  return snapshot;
}

namespace metrics {
std::string_view errorType(const std::error_code& code) {
  if (code.category() != reconsume::category()) return "_OTHER";
  switch (static_cast<errc>(code.value())) {
    case errc::invalid_argument:
      return "invalid_argument";
    case errc::timeout:
      return "timeout";
    case errc::connection_lost:
      return "connection_lost";
    case errc::broker_error:
      return "broker_error";
    case errc::authentication:
      return "authentication";
    case errc::not_found:
      return "not_found";
    case errc::closed:
      return "closed";
    case errc::too_large:
      return "too_large";
    case errc::protocol_error:
      return "protocol_error";
    case errc::producer_busy:
      return "producer_busy";
    case errc::unsupported:
      return "unsupported";
    case errc::unavailable:
      return "unavailable";
    case errc::transaction_conflict:
      return "transaction_conflict";
    case errc::transaction_not_found:
      return "transaction_not_found";
    case errc::acknowledgement_unconfirmed:
      return "acknowledgement_unconfirmed";
    case errc::would_deadlock:
      return "would_deadlock";
  }
  return "_OTHER";
}

const MetricKindInfo kConsumed{"messaging.client.consumed.messages", "{message}",
                               "Messages handed to the application by a consumer",
                               MetricKind::counter};
const MetricKindInfo kSent{"messaging.client.sent.messages", "{message}",
                           "Messages a producer sent, by outcome (error.type when the broker did "
                           "not store them)",
                           MetricKind::counter};
const MetricKindInfo kAcknowledged{"reconsume.client.acknowledged.messages", "{message}",
                                   "Messages acknowledged (confirmed by the broker)",
                                   MetricKind::counter};
const MetricKindInfo kNegativelyAcked{"reconsume.client.negatively_acknowledged.messages",
                                      "{message}", "Messages negatively acknowledged",
                                      MetricKind::counter};
const MetricKindInfo kRetries{"reconsume.retries", "{retry}",
                              "Messages sent to the retry topic, by level and category",
                              MetricKind::counter};
const MetricKindInfo kDeadLetters{"reconsume.dead_letters", "{message}",
                                  "Messages sent to the dead-letter topic, by cause and category",
                                  MetricKind::counter};
const MetricKindInfo kReconnects{"reconsume.client.reconnects", "{connection}",
                                 "Connections to a broker made again after one was lost",
                                 MetricKind::counter};
const MetricKindInfo kMoveDuration{
    "reconsume.retry.duration", "s",
    "From a reconsumeLater or deadLetter call to its completion: the copy stored and the original "
    "acknowledged (committed, in the transactional mode)",
    MetricKind::histogram};
const MetricKindInfo kDeliveryLateness{
    "reconsume.delivery.lateness", "s",
    "How long after the time its delay named a delayed message (a retry) was handed to the "
    "application; compares this client's clock with the publisher's",
    MetricKind::histogram};
const MetricKindInfo kOperationDuration{
    "messaging.client.operation.duration", "s",
    "From a send or an acknowledgement to the broker's confirmation", MetricKind::histogram};
}  // namespace metrics

}  // namespace reconsume::detail
