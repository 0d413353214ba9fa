// Recording one latency into a histogram (common/metrics_registry.hpp): a retry records three (its
// duration, its send's and its acknowledgement's) and its delivery one more (its lateness), a
// publish and a consume + ack one each, on the application's thread and the client's I/O thread.
//
//   build/bench/bench_metrics --benchmark_min_time=1
//
// The values are spread over the buckets as latencies are (log-uniform from 20 µs to 20 s), so
// that the bucket search is not always the same.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/metrics_registry.hpp"

namespace {

using reconsume::detail::Histogram;

std::vector<double> latencies() {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> exponent(std::log(20e-6), std::log(20.0));
  std::vector<double> values(4096);
  for (auto& value : values) value = std::exp(exponent(random));
  return values;
}

void BM_HistogramRecord(benchmark::State& state) {
  Histogram histogram({.name = "bench.duration"}, nullptr);
  const auto values = latencies();
  std::size_t i = 0;
  for (auto _ : state) {
    histogram.record(values[i++ & (values.size() - 1)]);
  }
  benchmark::DoNotOptimize(histogram.data().count);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

}  // namespace

BENCHMARK_MAIN();
