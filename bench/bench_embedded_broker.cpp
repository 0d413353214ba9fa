// The embedded broker alone, through the Backend seam (no client layer): what share of the
// 200,000 round trips per second budget it takes.
//
//   PublishDispatchAck:        send → delivered to the sink (inline) → acknowledge → flow(1)
//   DelayedPublishAdvanceAck:  send with deliverAfter → ManualClock::advance → delivered → ack
//   RetryRoundTrip:            send to the topic → delivered → send to a retry topic with
//                              deliverAt → advance → delivered → ack both (the broker's part of
//                              one reconsumeLater round trip)
//
// Run: build/bench/bench_embedded_broker [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "client/backend.hpp"
#include "common/service_url.hpp"
#include "embedded/embedded_backend.hpp"
#include "reconsume/clock.hpp"

namespace {

using namespace std::chrono_literals;
using namespace reconsume;
using namespace reconsume::detail;

// Keeps the last message delivered; everything runs inline on the benchmark's thread.
class LastMessageSink final : public client::MessageSink {
 public:
  void onMessage(std::shared_ptr<MessageData> message) override { last = std::move(message); }
  void onReset(const std::string&) override {}
  void onEnded(const std::string&, const Status&) override {}
  std::shared_ptr<MessageData> take() {
    if (!last) throw std::runtime_error("the broker delivered nothing");
    return std::move(last);
  }
  std::shared_ptr<MessageData> last;
};

void check(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.message);
}

struct Setup {
  explicit Setup(const std::string& name) {
    auto connection =
        embedded::connectEmbedded(ServiceUrl::parse("embedded://bench-" + name), clock);
    backend = connection.backend;
  }

  std::shared_ptr<client::BackendProducer> producer(const std::string& topic) {
    ProducerOptions options;
    options.topic = topic;
    std::shared_ptr<client::BackendProducer> out;
    backend->createProducer(options,
                            [&](const Status& s, std::shared_ptr<client::BackendProducer> p) {
                              check(s);
                              out = std::move(p);
                            });
    return out;
  }

  std::shared_ptr<client::BackendConsumer> consumer(const std::string& topic,
                                                    std::shared_ptr<client::MessageSink> sink) {
    client::SubscribeSpec spec;
    spec.topic = topic;
    spec.subscription = "bench";
    spec.type = SubscriptionType::shared;
    std::shared_ptr<client::BackendConsumer> out;
    backend->subscribe(spec, std::move(sink),
                       [&](const Status& s, std::shared_ptr<client::BackendConsumer> c) {
                         check(s);
                         out = std::move(c);
                       });
    return out;
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  std::shared_ptr<client::Backend> backend;
};

void send(client::BackendProducer& producer, const OutgoingMessage& message) {
  producer.send(message, [](const Status& s, MessageId) { check(s); });
}

void ack(client::BackendConsumer& consumer, const MessageData& message) {
  consumer.acknowledge(message, [](const Status& s) { check(s); });
  consumer.flow(1);
}

OutgoingMessage messageOf(benchmark::State& state) {
  OutgoingMessage message;
  message.payload = std::string(static_cast<std::size_t>(state.range(0)), 'x');
  message.properties = {{"origin", "bench"}};
  return message;
}

void PublishDispatchAck(benchmark::State& state) {
  Setup setup("plain");
  auto topic = "persistent://public/default/plain";
  auto sink = std::make_shared<LastMessageSink>();
  auto consumer = setup.consumer(topic, sink);
  auto producer = setup.producer(topic);
  auto message = messageOf(state);
  for (auto _ : state) {
    send(*producer, message);
    ack(*consumer, *sink->take());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(PublishDispatchAck)->Arg(100)->Arg(1024);

void DelayedPublishAdvanceAck(benchmark::State& state) {
  Setup setup("delayed");
  auto topic = "persistent://public/default/delayed";
  auto sink = std::make_shared<LastMessageSink>();
  auto consumer = setup.consumer(topic, sink);
  auto producer = setup.producer(topic);
  auto message = messageOf(state);
  message.deliverAfter = 1s;
  for (auto _ : state) {
    send(*producer, message);
    setup.clock->advance(1s);
    ack(*consumer, *sink->take());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(DelayedPublishAdvanceAck)->Arg(100)->Arg(1024);

void RetryRoundTrip(benchmark::State& state) {
  Setup setup("round-trip");
  auto topic = "persistent://public/default/orders";
  auto retryTopic = "persistent://public/default/orders-bench-RETRY";
  auto mainSink = std::make_shared<LastMessageSink>();
  auto retrySink = std::make_shared<LastMessageSink>();
  auto mainConsumer = setup.consumer(topic, mainSink);
  auto retryConsumer = setup.consumer(retryTopic, retrySink);
  auto producer = setup.producer(topic);
  auto retryProducer = setup.producer(retryTopic);
  auto message = messageOf(state);
  for (auto _ : state) {
    send(*producer, message);
    auto received = mainSink->take();
    OutgoingMessage retry;
    retry.payload = received->payload.toString();
    retry.properties = received->properties.toMap();
    retry.properties["RECONSUMETIMES"] = "1";
    retry.deliverAt = setup.clock->now() + 1s;
    send(*retryProducer, retry);
    ack(*mainConsumer, *received);
    setup.clock->advance(1s);
    ack(*retryConsumer, *retrySink->take());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(RetryRoundTrip)->Arg(100)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
