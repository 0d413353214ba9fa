// Storage: a broker keeps only a bounded tail of fully acknowledged entries.
#include <gtest/gtest.h>

#include "embedded/broker.hpp"
#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

struct SmallBroker {
  SmallBroker() {
    BrokerConfig config;
    config.retainedAcknowledgedEntries = 3;
    auto broker = std::make_shared<Broker>("storage", clock, config);
    backend = makeBackend(broker);
    admin = makeAdmin(broker);
    ProducerOptions options;
    options.topic = topic;
    callStatus([&](auto done) { backend->createProducer(options, done); }, producer)
        .raiseIfFailed();
  }

  std::shared_ptr<client::BackendConsumer> subscribe(const std::string& name, bool durable,
                                                     std::shared_ptr<RecordingSink> sink) {
    client::SubscribeSpec spec;
    spec.topic = topic;
    spec.subscription = name;
    spec.durable = durable;
    spec.initialPosition = InitialPosition::earliest;
    spec.startMessageId = durable ? std::nullopt : std::optional(MessageId::earliest());
    std::shared_ptr<client::BackendConsumer> consumer;
    callStatus([&](auto done) { backend->subscribe(spec, std::move(sink), done); }, consumer)
        .raiseIfFailed();
    return consumer;
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  std::string topic = topicName("t");
  std::shared_ptr<client::Backend> backend;
  std::shared_ptr<client::AdminBackend> admin;
  std::shared_ptr<client::BackendProducer> producer;
};

TEST(EmbeddedStorage, AcknowledgedEntriesBeyondTheRetainedTailAreDropped) {
  SmallBroker b;
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = b.subscribe("s", true, sink);
  for (int i = 0; i < 10; ++i) send(*b.producer, std::to_string(i));
  for (const auto& m : sink->messages()) ack(*consumer, *m);

  auto read = std::make_shared<RecordingSink>();
  auto reader = b.subscribe("reader", false, read);
  EXPECT_EQ(read->payloads(), (Strings{"7", "8", "9"}));
  // Ids do not change: the next message is still entry 10.
  EXPECT_EQ(send(*b.producer, "10").entry(), 10);
}

TEST(EmbeddedStorage, UnacknowledgedEntriesAreKept) {
  SmallBroker b;
  auto sink = std::make_shared<RecordingSink>();
  auto consumer = b.subscribe("s", true, sink);
  for (int i = 0; i < 10; ++i) send(*b.producer, std::to_string(i));
  for (std::size_t i = 1; i < 10; ++i) ack(*consumer, *sink->messages()[i]);  // not entry 0

  auto read = std::make_shared<RecordingSink>();
  auto reader = b.subscribe("reader", false, read);
  EXPECT_EQ(read->count(), 10u);
  for (const auto& stats : b.admin->subscriptions(b.topic)) {
    if (stats.name == "s") EXPECT_EQ(stats.backlog, 1);
  }
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
