// Dead-letter inspection: the per-message cost of a scan (decode + filter), of an export line and
// of a replay's property rewrite on a realistic dead letter, and whole operations on the embedded
// broker (list and replay of 1,000 dead letters) — the library's own overhead, without a network.
//
//   build/bench/bench_dlq --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>

#include "common/message_data.hpp"
#include "dlq/filter.hpp"
#include "dlq/json_export.hpp"
#include "dlq/replay_message.hpp"
#include "reconsume/reconsume.hpp"

namespace {

using namespace std::chrono_literals;
using namespace reconsume;

std::map<std::string, std::string> deadLetterProperties() {
  return {
      {"tenant", "acme-industries"},
      {"order-id", "ORD-2024-000184467"},
      {"trace-id", "4bf92f3577b34da6a3ce929d0e0e4736"},
      {"content-type", "application/json"},
      {"source", "checkout-service"},
      {"DEAD_LETTER_CAUSE", "exhausted"},
      {"RECONSUMETIMES", "19"},
      {"DELAY_TIME", "7200000"},
      {"RECONSUME_LEVEL", "18"},
      {"REAL_TOPIC", "persistent://shop/orders/created"},
      {"ORIGIN_MESSAGE_ID", "18446:221:-1"},
      {"ORIGIN_MESSAGE_IDY_TIME", "18446:221:-1"},
      {"FIRST_FAILURE_TIME", "1700000000000"},
      {"RECONSUME_REASON", "payment gateway timed out"},
      {"RECONSUME_HISTORY",
       R"([{"n":17,"at":1700000000000,"delay":3600000,"reason":"payment gateway timed out"},)"
       R"({"n":18,"at":1700003600000,"delay":7200000,"reason":"payment gateway timed out"},)"
       R"({"n":19,"at":1700010800000,"delay":0,"reason":"payment gateway timed out"}])"},
  };
}

Message storedDeadLetter() {
  auto data = std::make_shared<detail::MessageData>();
  data->topic = "persistent://shop/orders/created-billing-DLQ";
  data->id = MessageId(20001, 17, -1);
  data->payload =
      reconsume::detail::Bytes::copy(R"({"order":"ORD-2024-000184467","amount":129.90,)"
                                     R"("currency":"EUR","lines":[{"sku":"A-1","qty":2},)"
                                     R"({"sku":"B-7","qty":1}]})");
  data->properties = reconsume::detail::Properties::fromMap(deadLetterProperties());
  data->partitionKey = "customer-18446";
  data->publishTimeMs = 1'700'010'800'000;
  return Message(std::move(data));
}

void BM_DecodeAndFilter(benchmark::State& state) {
  auto message = storedDeadLetter();
  DeadLetterFilter filter;
  filter.reason = "time(d )?out";
  filter.cause = "exhausted";
  detail::dlq::CompiledFilter compiled(filter);
  auto now = std::chrono::system_clock::time_point(1'700'020'000'000ms);
  for (auto _ : state) {
    auto letter = DeadLetter::from(message);
    benchmark::DoNotOptimize(compiled.matches(letter, now));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeAndFilter);

void BM_ExportLine(benchmark::State& state) {
  auto letter = DeadLetter::from(storedDeadLetter());
  for (auto _ : state) benchmark::DoNotOptimize(detail::dlq::toJsonLine(letter));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ExportLine);

void BM_ReplayMessage(benchmark::State& state) {
  auto message = storedDeadLetter();
  auto now = std::chrono::system_clock::time_point(1'700'020'000'000ms);
  for (auto _ : state) benchmark::DoNotOptimize(detail::dlq::replayMessage(message, now));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ReplayMessage);

// A fresh embedded broker holding `count` dead letters of the realistic shape.
struct EmbeddedDeadLetters {
  explicit EmbeddedDeadLetters(int count) {
    static std::atomic<int> brokers{0};
    url = "embedded://bench-dlq-" + std::to_string(++brokers);
    client = Client::connect(url);
    admin = Admin::connect(url);
    ProducerOptions options;
    options.topic = topic;
    options.initialSubscription = "reconsume-dlq";
    auto producer = client.createProducer(options);
    auto stored = storedDeadLetter();
    OutgoingMessage message;
    message.payload = std::string(stored.data());
    message.properties = stored.properties();
    message.properties["REAL_TOPIC"] = origin;
    for (int i = 0; i < count; ++i) producer.send(message);
    producer.close();
  }
  ~EmbeddedDeadLetters() { client.close(); }

  std::string url;
  std::string topic = "persistent://shop/orders/created-billing-DLQ";
  std::string origin = "persistent://shop/orders/created";
  Client client;
  Admin admin;
};

void BM_EmbeddedList(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  EmbeddedDeadLetters setup(count);
  DeadLetterQueue queue(setup.client, setup.admin, setup.topic);
  for (auto _ : state) {
    auto listed = queue.list();
    if (listed.size() != static_cast<std::size_t>(count)) state.SkipWithError("wrong count");
  }
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(BM_EmbeddedList)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_EmbeddedReplay(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    auto setup = std::make_unique<EmbeddedDeadLetters>(count);
    DeadLetterQueue queue(setup->client, setup->admin, setup->topic);
    state.ResumeTiming();
    auto result = queue.replay();
    if (result.replayed != static_cast<std::size_t>(count)) state.SkipWithError("not all replayed");
    state.PauseTiming();
    setup.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(BM_EmbeddedReplay)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
