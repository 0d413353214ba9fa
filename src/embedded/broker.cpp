#include "embedded/broker.hpp"

#include "common/topic_name.hpp"
#include "embedded/topic_lock.hpp"

namespace reconsume::detail::embedded {

Broker::Broker(std::string name, std::shared_ptr<Clock> clock, BrokerConfig config)
    : name_(std::move(name)),
      clock_(std::move(clock)),
      config_(config),
      coordinator_(std::make_shared<Coordinator>(clock_, faults_)) {}

Broker::~Broker() {
  // Transactions handles may keep the coordinator alive; its timeouts have nothing left to do.
  coordinator_->shutdown();
  // Stops the topics' timers; possibly run inside a sink (the last client dropped there).
  TopicLock::runOutsideTopicLocks([topics = std::move(topics_)] {
    for (auto& [name, topic] : topics) topic->markDeleted();
  });
}

std::string Broker::describe() const {
  return name_.empty() ? std::string("the default embedded broker")
                       : "embedded broker '" + name_ + "'";
}

std::shared_ptr<Topic> Broker::createTopic(const std::string& name) {
  auto topic = std::make_shared<Topic>(name, ++lastLedgerId_, clock_, config_);
  topics_.emplace(name, topic);
  return topic;
}

Status Broker::attach(const std::string& name, const std::function<Status(Topic&)>& attach,
                      std::shared_ptr<Topic>& topic) {
  std::lock_guard lock(mutex_);
  if (auto partitioned = partitioned_.find(name); partitioned != partitioned_.end()) {
    return Status(errc::broker_error,
                  "topic " + name + " is partitioned (" + std::to_string(partitioned->second) +
                      " partitions): producers and consumers attach to its partitions");
  }
  auto found = topics_.find(name);
  if (found == topics_.end()) {
    // A partition past the count of its partitioned topic is not a topic Pulsar creates.
    auto parsed = TopicName::parse(name);
    if (parsed.partition() >= 0) {
      auto base = partitioned_.find(parsed.base().toString());
      if (base != partitioned_.end() && parsed.partition() >= base->second) {
        return Status(errc::not_found, "topic " + name + " not found: " + base->first + " has " +
                                           std::to_string(base->second) + " partitions");
      }
    }
  }
  topic = found != topics_.end() ? found->second : createTopic(name);
  return attach(*topic);
}

int Broker::partitions(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto found = partitioned_.find(name);
  return found == partitioned_.end() ? 0 : found->second;
}

Status Broker::createPartitionedTopic(const std::string& name, int partitions) {
  if (partitions < 1) {
    return Status(errc::invalid_argument, "cannot create topic " + name + " with " +
                                              std::to_string(partitions) +
                                              " partitions: at least 1 is needed");
  }
  auto parsed = TopicName::parse(name);
  if (parsed.partition() >= 0) {
    return Status(errc::invalid_argument,
                  "cannot create partitioned topic " + name + ": its name ends in -partition-N");
  }
  std::lock_guard lock(mutex_);
  if (partitioned_.count(name) || topics_.count(name)) {
    return Status(errc::broker_error, "topic " + name + " already exists");
  }
  // As Pulsar does: a partition that exists already (a topic of that name) is a conflict.
  for (int i = 0; i < partitions; ++i) {
    auto partition = parsed.partitionAt(i).toString();
    if (topics_.count(partition)) {
      return Status(errc::broker_error, "topic " + name + " already exists: its partition " +
                                            partition + " is a topic");
    }
  }
  partitioned_.emplace(name, partitions);
  // Pulsar creates the partitions with the metadata.
  for (int i = 0; i < partitions; ++i) createTopic(parsed.partitionAt(i).toString());
  return {};
}

bool Broker::topicExists(const std::string& name) const {
  std::lock_guard lock(mutex_);
  return partitioned_.count(name) || topics_.count(name);
}

Status Broker::topicsOf(const std::string& name,
                        std::vector<std::shared_ptr<Topic>>& topics) const {
  if (auto partitioned = partitioned_.find(name); partitioned != partitioned_.end()) {
    auto base = TopicName::parse(name);
    for (int i = 0; i < partitioned->second; ++i) {
      auto found = topics_.find(base.partitionAt(i).toString());
      if (found != topics_.end()) topics.push_back(found->second);
    }
    return {};
  }
  auto found = topics_.find(name);
  if (found == topics_.end()) {
    return Status(errc::not_found, "topic " + name + " does not exist on " + describe());
  }
  topics.push_back(found->second);
  return {};
}

Status Broker::terminateTopic(const std::string& name) {
  std::vector<std::shared_ptr<Topic>> topics;
  {
    std::lock_guard lock(mutex_);
    if (auto status = topicsOf(name, topics); !status.ok()) return status;
  }
  for (auto& topic : topics) topic->terminate();
  return {};
}

Status Broker::deleteTopic(const std::string& name) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Topic>> topics;
  if (auto status = topicsOf(name, topics); !status.ok()) return status;
  for (auto& topic : topics) {
    auto [producers, consumers] = topic->attachments();
    if (producers + consumers > 0) {
      return Status(errc::broker_error, "cannot delete topic " + name + ": " + topic->name() +
                                            " has " + std::to_string(producers) +
                                            " producer(s) and " + std::to_string(consumers) +
                                            " consumer(s) attached");
    }
  }
  for (auto& topic : topics) {
    topic->markDeleted();
    topics_.erase(topic->name());
  }
  partitioned_.erase(name);
  return {};
}

Status Broker::subscriptions(const std::string& name, std::vector<SubscriptionStats>& stats) const {
  std::vector<std::shared_ptr<Topic>> topics;
  {
    std::lock_guard lock(mutex_);
    if (auto status = topicsOf(name, topics); !status.ok()) return status;
  }
  // A partitioned topic's subscription spans its partitions: backlogs add up.
  std::map<std::string, std::int64_t> backlogs;
  for (auto& topic : topics) {
    for (auto& one : topic->subscriptionStats()) backlogs[one.name] += one.backlog;
  }
  for (auto& [subscription, backlog] : backlogs) stats.push_back({subscription, backlog});
  return {};
}

Status Broker::cursor(const std::string& name, const std::string& subscription,
                      SubscriptionCursor& out) const {
  std::shared_ptr<Topic> topic;
  {
    std::lock_guard lock(mutex_);
    if (auto partitioned = partitioned_.find(name); partitioned != partitioned_.end()) {
      return Status(errc::invalid_argument,
                    "topic " + name + " is partitioned (" + std::to_string(partitioned->second) +
                        " partitions): ask for the cursor of each partition");
    }
    auto found = topics_.find(name);
    if (found == topics_.end()) {
      return Status(errc::not_found, "topic " + name + " does not exist on " + describe());
    }
    topic = found->second;
  }
  return topic->cursor(subscription, out);
}

}  // namespace reconsume::detail::embedded
