#include "embedded/embedded_backend.hpp"

#include "common/open_handles.hpp"
#include "common/topic_name.hpp"
#include "embedded/broker_registry.hpp"
#include "embedded/embedded_consumer.hpp"
#include "embedded/embedded_producer.hpp"
#include "embedded/embedded_transaction.hpp"

namespace reconsume::detail::embedded {
namespace {

// A topic name as given, validated: an invalid_argument Status otherwise.
Status checkTopic(const std::string& topic) {
  try {
    TopicName::parse(topic);
    return {};
  } catch (...) {
    return Status::fromException(std::current_exception());
  }
}

class EmbeddedBackend final : public client::Backend {
 public:
  explicit EmbeddedBackend(std::shared_ptr<Broker> broker) : broker_(std::move(broker)) {}
  ~EmbeddedBackend() override { closeAll(); }

  void createProducer(const ProducerOptions& options,
                      Callback<std::shared_ptr<client::BackendProducer>> done) override {
    if (handles_->closed()) return done(closedStatus(), nullptr);
    if (auto status = checkTopic(options.topic); !status.ok()) return done(status, nullptr);
    auto id = broker_->nextId();
    ProducerState state;
    state.name =
        options.producerName.empty() ? "embedded-" + std::to_string(id) : options.producerName;
    std::shared_ptr<Topic> topic;
    auto status = broker_->attach(
        options.topic, [&](Topic& t) { return t.addProducer(state, options.initialSubscription); },
        topic);
    if (!status.ok()) return done(status, nullptr);
    auto producer = std::make_shared<EmbeddedProducer>(topic, std::move(state), id,
                                                       broker_->config().maxMessageSize,
                                                       options.compression, broker_->coordinator());
    if (!handles_->add(producer)) return done(closedStatus(), nullptr);
    done({}, std::move(producer));
  }

  void subscribe(const client::SubscribeSpec& spec, std::shared_ptr<client::MessageSink> sink,
                 Callback<std::shared_ptr<client::BackendConsumer>> done) override {
    if (handles_->closed()) return done(closedStatus(), nullptr);
    if (auto status = checkTopic(spec.topic); !status.ok()) return done(status, nullptr);
    if (spec.subscription.empty()) {
      return done(Status(errc::invalid_argument,
                         "the subscription name for topic " + spec.topic + " is empty"),
                  nullptr);
    }
    auto id = broker_->nextId();
    auto consumer = std::make_unique<ConsumerState>();
    consumer->id = id;
    consumer->name =
        spec.consumerName.empty() ? "embedded-consumer-" + std::to_string(id) : spec.consumerName;
    consumer->sink = std::move(sink);
    consumer->receiverQueueSize = spec.receiverQueueSize;
    consumer->permits = std::max(0, spec.receiverQueueSize);
    std::shared_ptr<Topic> topic;
    std::shared_ptr<Subscription> subscription;
    auto status = broker_->attach(
        spec.topic, [&](Topic& t) { return t.subscribe(spec, std::move(consumer), subscription); },
        topic);
    if (!status.ok()) return done(status, nullptr);
    auto handle = std::make_shared<EmbeddedConsumer>(
        topic, subscription, id, broker_->coordinator(), broker_->sharedFaults());
    if (!handles_->add(handle)) return done(closedStatus(), nullptr);
    done({}, std::move(handle));
  }

  void partitions(const std::string& topic, Callback<int> done) override {
    if (handles_->closed()) return done(closedStatus(), 0);
    done({}, broker_->partitions(topic));
  }

  // The embedded broker never creates a topic by asking about it.
  void existingPartitions(const std::string& topic, Callback<int> done) override {
    partitions(topic, std::move(done));
  }

  void newTransaction(std::chrono::milliseconds timeout,
                      Callback<std::shared_ptr<client::BackendTransaction>> done) override {
    if (handles_->closed()) return done(closedStatus(), nullptr);
    if (timeout.count() <= 0) {
      return done(Status(errc::invalid_argument, "a transaction timeout of " +
                                                     std::to_string(timeout.count()) +
                                                     " ms is not positive"),
                  nullptr);
    }
    auto id = broker_->coordinator()->begin(timeout);
    done({}, std::make_shared<EmbeddedTransaction>(broker_->coordinator(), id, handles_,
                                                   broker_->describe()));
  }

  void close(Callback<> done) override {
    closeAll();
    done({});
  }

 private:
  Status closedStatus() const {
    return Status(errc::closed, "the client of " + broker_->describe() + " is closed");
  }

  const std::shared_ptr<Broker> broker_;
  void closeAll() {
    for (auto& handle : handles_->closeAll()) handle->closeNow();
  }

  const std::shared_ptr<OpenHandles<Closable>> handles_ = std::make_shared<OpenHandles<Closable>>();
};

}  // namespace

std::shared_ptr<client::Backend> makeBackend(std::shared_ptr<Broker> broker) {
  return std::make_shared<EmbeddedBackend>(std::move(broker));
}

EmbeddedConnection connectEmbedded(const ServiceUrl& url, std::shared_ptr<Clock> clock) {
  auto broker = acquireBroker(url, std::move(clock));
  EmbeddedConnection connection;
  connection.clock = broker->clock();
  connection.backend = makeBackend(std::move(broker));
  return connection;
}

}  // namespace reconsume::detail::embedded
