// The cost of one reconsumeLater decision: decide + buildProperties on a realistic message
// (5 application properties, a message on its fourth hop with a history of 3 entries).
// Target: >= 1,000,000 per second on one core.
//
//   build/bench/bench_routing --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "retry/retry_history.hpp"
#include "retry/retry_properties.hpp"
#include "retry/routing.hpp"

namespace {

using namespace std::chrono_literals;
using reconsume::detail::retry::buildProperties;
using reconsume::detail::retry::decide;
using Properties = reconsume::detail::Properties;

Properties realisticMessage() {
  return {
      {"tenant", "acme-industries"},
      {"order-id", "ORD-2024-000184467"},
      {"trace-id", "4bf92f3577b34da6a3ce929d0e0e4736"},
      {"content-type", "application/json"},
      {"source", "checkout-service"},
      {"RECONSUMETIMES", "3"},
      {"DELAY_TIME", "10000"},
      {"RECONSUME_LEVEL", "3"},
      {"REAL_TOPIC", "persistent://shop/orders/created"},
      {"ORIGIN_MESSAGE_ID", "18446:221:-1"},
      {"ORIGIN_MESSAGE_IDY_TIME", "18446:221:-1"},
      {"FIRST_FAILURE_TIME", "1700000000000"},
      {"RECONSUME_REASON", "payment gateway timed out"},
      {"RECONSUME_HISTORY",
       R"([{"n":1,"at":1700000000000,"delay":1000,"reason":"payment gateway timed out"},)"
       R"({"n":2,"at":1700000001000,"delay":5000,"reason":"payment gateway timed out"},)"
       R"({"n":3,"at":1700000006000,"delay":10000,"reason":"payment gateway timed out"}])"},
  };
}

void runDecision(benchmark::State& state, const reconsume::RetryPolicy& policy) {
  const Properties incoming = realisticMessage();
  const reconsume::MessageId id(18502, 17, -1);
  const std::string topic = "persistent://shop/orders/created-billing-RETRY";
  const std::map<std::string, std::string> custom;
  const reconsume::detail::retry::RetryRequest request;
  auto now = std::chrono::system_clock::time_point(1'700'000'016'000ms);
  for (auto _ : state) {
    auto route = decide(policy, incoming, request);
    auto properties = buildProperties(incoming, topic, "billing", id, route, now,
                                      "payment gateway timed out", custom);
    benchmark::DoNotOptimize(properties);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_DecideAndBuild_LevelTable(benchmark::State& state) {
  runDecision(state, reconsume::RetryPolicy::levels(reconsume::DelayLevels::defaultTable()));
}
BENCHMARK(BM_DecideAndBuild_LevelTable);

void BM_DecideAndBuild_ExponentialFullJitter(benchmark::State& state) {
  runDecision(state,
              reconsume::RetryPolicy::exponential(
                  {.min = 1s, .max = 10min, .multiplier = 2, .jitter = reconsume::Jitter::full}));
}
BENCHMARK(BM_DecideAndBuild_ExponentialFullJitter);

// A message's first failure, as `reconsume perf` retries it: no properties of its own, none of
// ours yet, a level-table policy and no reason.
void BM_DecideAndBuild_FirstHop(benchmark::State& state) {
  const Properties incoming;
  const reconsume::MessageId id(18502, 17, -1);
  const std::string topic = "persistent://public/default/reconsume-perf-retry-270116443";
  const std::map<std::string, std::string> custom;
  const reconsume::detail::retry::RetryRequest request;
  const auto policy = reconsume::RetryPolicy::levels(reconsume::DelayLevels::parse("1h"));
  auto now = std::chrono::system_clock::time_point(1'700'000'016'000ms);
  for (auto _ : state) {
    auto route = decide(policy, incoming, request);
    auto properties = buildProperties(incoming, topic, "perf", id, route, now, "", custom);
    benchmark::DoNotOptimize(properties);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecideAndBuild_FirstHop);

// The parts, to see where the time goes.
void BM_Part_Decide(benchmark::State& state) {
  const Properties incoming = realisticMessage();
  auto policy = reconsume::RetryPolicy::levels(reconsume::DelayLevels::defaultTable());
  for (auto _ : state) benchmark::DoNotOptimize(decide(policy, incoming, {}));
}
BENCHMARK(BM_Part_Decide);

void BM_Part_CopyProperties(benchmark::State& state) {
  const Properties incoming = realisticMessage();
  for (auto _ : state) {
    Properties copy = incoming;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_Part_CopyProperties);

void BM_Part_AppendHistory(benchmark::State& state) {
  const Properties incoming = realisticMessage();
  const std::string history(incoming.at("RECONSUME_HISTORY"));
  reconsume::detail::retry::HistoryEntry entry{
      4, std::chrono::system_clock::time_point(1'700'000'016'000ms), 30s,
      "payment gateway timed out"};
  for (auto _ : state)
    benchmark::DoNotOptimize(reconsume::detail::retry::appendHistory(&history, entry));
}
BENCHMARK(BM_Part_AppendHistory);

}  // namespace

BENCHMARK_MAIN();
