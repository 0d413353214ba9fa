// The metrics registry and the value types: series found again by their labels, histogram
// buckets and quantiles, and the Prometheus text (names, escaping, cumulative buckets).
#include "common/metrics_registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <thread>

namespace reconsume::detail {
namespace {

const MetricKindInfo kTestCounter{"test.things", "{thing}", "Things \\ counted\nin tests",
                                  MetricKind::counter};
const MetricKindInfo kTestHistogram{"test.wait", "s", "Waits", MetricKind::histogram};

TEST(MetricsRegistry, TheSameLabelsInAnyOrderAreTheSameSeries) {
  MetricsRegistry registry;
  auto first = registry.counter(kTestCounter, {{"b", "2"}, {"a", "1"}});
  auto again = registry.counter(kTestCounter, {{"a", "1"}, {"b", "2"}});
  auto other = registry.counter(kTestCounter, {{"a", "1"}, {"b", "3"}});
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  first->add();
  again->add(2);
  other->add();
  auto snapshot = registry.snapshot();
  EXPECT_EQ(snapshot.counter("test.things"), 4u);
  EXPECT_EQ(snapshot.counter("test.things", {{"b", "2"}}), 3u);
  EXPECT_EQ(snapshot.counter("test.things", {{"b", "2"}, {"a", "9"}}), 0u);
  EXPECT_EQ(first->series().label("messaging.system"), "pulsar");
}

TEST(MetricsRegistry, CountsFromManyThreadsAddUp) {
  MetricsRegistry registry;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto counter = registry.counter(kTestCounter, {});
      auto histogram = registry.histogram(kTestHistogram, {});
      for (int i = 0; i < 10'000; ++i) {
        counter->add();
        histogram->record(0.001);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto snapshot = registry.snapshot();
  EXPECT_EQ(snapshot.counter("test.things"), 40'000u);
  auto histogram = snapshot.histogram("test.wait");
  EXPECT_EQ(histogram.count, 40'000u);
  EXPECT_NEAR(histogram.sum, 40.0, 1e-6);
}

TEST(Histogram, BucketsHoldValuesUpToTheirBoundAndQuantilesInterpolate) {
  MetricsRegistry registry;
  auto histogram = registry.histogram(kTestHistogram, {});
  for (int i = 0; i < 90; ++i)
    histogram->record(0.002);  // bound 0.002: the bucket (0.00175, 0.002]
  for (int i = 0; i < 9; ++i) histogram->record(0.1);
  histogram->record(50'000);  // above the last bound
  histogram->record(-3);      // clock skew: counts as 0
  auto data = histogram->data();
  EXPECT_EQ(data.count, 101u);
  const auto& bounds = data.bounds;
  auto at = [&](double bound) {
    auto i = std::lower_bound(bounds.begin(), bounds.end(), bound) - bounds.begin();
    return data.counts[static_cast<std::size_t>(i)];
  };
  EXPECT_EQ(at(0.002), 90u);
  EXPECT_EQ(at(0.1), 9u);
  EXPECT_EQ(data.counts.front(), 1u) << "the negative value, as 0";
  EXPECT_EQ(data.counts.back(), 1u);
  double p50 = data.quantile(0.5);
  EXPECT_GT(p50, 0.00175);
  EXPECT_LE(p50, 0.002);
  EXPECT_GT(data.quantile(0.95), 0.09);
  EXPECT_LE(data.quantile(0.95), 0.1);
  EXPECT_EQ(data.quantile(1.0), bounds.back());
  EXPECT_EQ(HistogramData{}.quantile(0.5), 0);
  for (std::size_t i = 1; i < bounds.size(); ++i) {
    EXPECT_LE((bounds[i] - bounds[i - 1]) / bounds[i - 1], 0.25 + 1e-9) << bounds[i];
  }
}

// The slot table finds the bucket std::lower_bound finds: at every bound, just below and just
// above it, between bounds, and far outside them.
TEST(Histogram, TheBucketOfAValueIsTheFirstBoundNotBelowIt) {
  const auto& bounds = histogramBounds();
  auto expected = [&](double value) {
    return static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), value) -
                                    bounds.begin());
  };
  std::vector<double> values = {
      0,    4.9e-324,      1e-300, 1e-9,  5e-6,
      1e-5, 1e-4,          0.5,    1,     9999,
      1e4,  10'000.000001, 1e5,    1e300, std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    values.push_back(bounds[i]);
    values.push_back(std::nextafter(bounds[i], 0.0));
    values.push_back(std::nextafter(bounds[i], 1e9));
    if (i > 0) values.push_back((bounds[i - 1] + bounds[i]) / 2);
  }
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(std::log(1e-7), std::log(1e5));
  for (int i = 0; i < 100'000; ++i) values.push_back(std::exp(exponent(random)));
  for (double value : values) {
    ASSERT_EQ(histogramBucket(value), expected(value)) << "value " << value;
  }
}

TEST(PrometheusText, NamesTypesEscapingAndCumulativeBuckets) {
  MetricsRegistry registry;
  registry.counter(kTestCounter, {{"topic", "a\"b\\c\nd"}, {"empty", ""}})->add(7);
  auto wait = registry.histogram(kTestHistogram, {{"group", "g"}});
  wait->record(0.0009);
  wait->record(0.003);
  wait->record(20'000);
  auto text = registry.snapshot().toPrometheusText();
  EXPECT_NE(text.find("# HELP test_things_total Things \\\\ counted\\nin tests\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE test_things_total counter\n"), std::string::npos) << text;
  EXPECT_NE(
      text.find("test_things_total{messaging_system=\"pulsar\",topic=\"a\\\"b\\\\c\\nd\"} 7\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE test_wait_seconds histogram\n"), std::string::npos);
  EXPECT_NE(
      text.find(
          "test_wait_seconds_bucket{group=\"g\",messaging_system=\"pulsar\",le=\"0.001\"} 1\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("le=\"0.005\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("le=\"10000\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("le=\"+Inf\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("test_wait_seconds_count{group=\"g\",messaging_system=\"pulsar\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("le=\"0.00175\""), std::string::npos) << "only 1, 2.5 and 5 per decade";
}

class CountingSink final : public MetricsSink {
 public:
  void add(const MetricSeries& series, std::uint64_t delta) override { added += delta; }
  void record(const MetricSeries& series, double value) override { recorded += value; }
  std::atomic<std::uint64_t> added{0};
  std::atomic<double> recorded{0};
};

TEST(MetricsRegistry, TheSinkIsToldOfEveryChange) {
  auto sink = std::make_shared<CountingSink>();
  MetricsRegistry registry(sink);
  registry.counter(kTestCounter, {})->add(5);
  registry.histogram(kTestHistogram, {})->record(0.25);
  EXPECT_EQ(sink->added.load(), 5u);
  EXPECT_DOUBLE_EQ(sink->recorded.load(), 0.25);
}

}  // namespace
}  // namespace reconsume::detail
