// The embedded broker's admin operations behind reconsume::Admin: blocking, throwing Error.
#include "common/topic_name.hpp"
#include "embedded/broker_registry.hpp"
#include "embedded/embedded_backend.hpp"

namespace reconsume::detail::embedded {
namespace {

class EmbeddedAdmin final : public client::AdminBackend {
 public:
  explicit EmbeddedAdmin(std::shared_ptr<Broker> broker) : broker_(std::move(broker)) {}

  void createPartitionedTopic(const std::string& topic, int partitions) override {
    broker_->createPartitionedTopic(checked(topic), partitions).raiseIfFailed();
  }
  int partitions(const std::string& topic) override { return broker_->partitions(checked(topic)); }
  bool topicExists(const std::string& topic) override {
    return broker_->topicExists(checked(topic));
  }
  void terminateTopic(const std::string& topic) override {
    broker_->terminateTopic(checked(topic)).raiseIfFailed();
  }
  void deleteTopic(const std::string& topic) override {
    broker_->deleteTopic(checked(topic)).raiseIfFailed();
  }
  std::vector<SubscriptionStats> subscriptions(const std::string& topic) override {
    std::vector<SubscriptionStats> stats;
    broker_->subscriptions(checked(topic), stats).raiseIfFailed();
    return stats;
  }
  SubscriptionCursor cursor(const std::string& topic, const std::string& subscription) override {
    SubscriptionCursor cursor;
    broker_->cursor(checked(topic), subscription, cursor).raiseIfFailed();
    return cursor;
  }

 private:
  // Throws invalid_argument naming a malformed name.
  static const std::string& checked(const std::string& topic) {
    TopicName::parse(topic);
    return topic;
  }

  const std::shared_ptr<Broker> broker_;
};

}  // namespace

std::shared_ptr<client::AdminBackend> makeAdmin(std::shared_ptr<Broker> broker) {
  return std::make_shared<EmbeddedAdmin>(std::move(broker));
}

std::shared_ptr<client::AdminBackend> connectEmbeddedAdmin(const ServiceUrl& url) {
  return makeAdmin(acquireBroker(url, nullptr));
}

}  // namespace reconsume::detail::embedded
