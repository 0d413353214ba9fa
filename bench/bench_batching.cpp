// The producer's batching: 1 KiB messages (a thousand, the default maxMessages, or a hundred)
// join an open batch (as a sender's thread adds them, under its producer's batch mutex), the batch
// is taken as one entry and written into a SEND frame (BatchContainer::buildFrame, on the
// producer's strand). The messages are prepared before each round (outside the timing), as the
// sender's thread prepares them before it takes the mutex.
//
//   cmake --build build --target bench_batching && ./build/bench/bench_batching
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "pulsar/batch_container.hpp"

namespace {

using namespace reconsume;
using namespace reconsume::detail;

void BM_Batch(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  BatchingOptions options;
  options.maxMessages = count;
  options.maxBytes = 16 << 20;
  pulsar::BatchContainer container(options);
  OutgoingData message;
  message.payload = Bytes::adopt(std::string(1024, 'o'));
  message.properties = Properties::fromMap({{"RECONSUMETIMES", "1"}, {"DELAY_TIME", "1000"}});
  const protocol::SendContext context{.producerName = "bench", .publishTimeMs = 1};
  std::uint64_t sequence = 0, done = 0;
  std::vector<pulsar::BatchedMessage> prepared;
  for (auto _ : state) {
    state.PauseTiming();
    prepared.clear();
    for (std::size_t i = 0; i < count; ++i) {
      prepared.emplace_back(OutgoingData(message), std::nullopt);
    }
    state.ResumeTiming();
    std::optional<pulsar::OutgoingEntry> entry;
    for (auto& each : prepared) {
      auto taken = container.add(
          std::move(each), [&done](const Status&, const MessageId&) { ++done; },
          [] { return pulsar::BatchContainer::TimePoint(); });
      if (taken.full) entry = std::move(taken.full);  // the last message fills it
    }
    auto frame = pulsar::BatchContainer::buildFrame(*entry, sequence, context, 1);
    sequence += count;
    benchmark::DoNotOptimize(frame);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
}
BENCHMARK(BM_Batch)->Arg(1000)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
