// The embedded round trip a user's unit test goes through: publish → receive → reconsumeLater →
// delayed redelivery on a ManualClock → receive → acknowledge. The project aims at 1,000,000 per
// second; where it stands: README, "Against the project's goals".
//
//   build/bench/bench_embedded_roundtrip --benchmark_min_time=2
//
// Two runs of a fixed number of round trips (iterations:2000 and iterations:12000) let
// bench/count_instructions.sh count the instructions and allocations of one round trip, which do
// not depend on the machine's speed or load as times do.
#include <benchmark/benchmark.h>

#include <atomic>

#include "reconsume/reconsume.hpp"

namespace {

using namespace reconsume;
using namespace std::chrono_literals;

void EmbeddedRoundTrip(benchmark::State& state) {
  static std::atomic<int> run{0};
  auto clock = std::make_shared<ManualClock>();
  ClientOptions clientOptions;
  clientOptions.clock = clock;
  auto client =
      Client::connect("embedded://bench-roundtrip-" + std::to_string(++run), clientOptions);

  ConsumerOptions options;
  options.topics = {"orders"};
  options.subscription = "bench";
  options.retry = RetryPolicy::levels(DelayLevels::parse("1s"));
  auto consumer = client.subscribe(options);
  auto producer = client.createProducer("orders");

  OutgoingMessage order;
  order.payload = std::string(256, 'o');
  order.key = "customer-42";
  order.properties = {{"tenant", "acme"}, {"source", "web"}, {"trace", "abc123"}};

  for (auto _ : state) {
    producer.send(order);
    auto message = consumer.receive();
    consumer.reconsumeLater(message);
    clock->advance(1s);
    auto retried = consumer.receive();
    consumer.acknowledge(retried);
  }
  state.SetItemsProcessed(state.iterations());
  client.close();
}
BENCHMARK(EmbeddedRoundTrip)->Unit(benchmark::kMicrosecond);
BENCHMARK(EmbeddedRoundTrip)->Unit(benchmark::kMicrosecond)->Iterations(2000);
BENCHMARK(EmbeddedRoundTrip)->Unit(benchmark::kMicrosecond)->Iterations(12000);

}  // namespace

BENCHMARK_MAIN();
