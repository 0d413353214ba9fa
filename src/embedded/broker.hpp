// One embedded broker: its clock, its settings, its topics (created on first use, as Pulsar's
// auto-creation does), the metadata of its partitioned topics, its transaction coordinator and
// the faults tests inject (faults.hpp).
//
// Thread safety: every member may be called from any thread. Lock order: the broker's mutex,
// then a topic's, then the transaction coordinator's. Attaching a producer or consumer holds the
// first two, so a topic cannot be deleted between being looked up and being attached to.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "embedded/broker_config.hpp"
#include "embedded/coordinator.hpp"
#include "embedded/faults.hpp"
#include "embedded/topic.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/subscription_cursor.hpp"

namespace reconsume::detail::embedded {

class Broker {
 public:
  Broker(std::string name, std::shared_ptr<Clock> clock, BrokerConfig config);
  ~Broker();

  const std::string& name() const { return name_; }
  // "embedded broker 'name'" or "the default embedded broker", for error texts.
  std::string describe() const;
  const std::shared_ptr<Clock>& clock() const { return clock_; }
  const BrokerConfig& config() const { return config_; }
  // Broker-unique ids for producers and consumers.
  std::uint64_t nextId() { return ++lastId_; }
  // Shared with the producers, consumers and transactions of every client: a transaction lives
  // in the broker and may outlive the client that opened it.
  const std::shared_ptr<Coordinator>& coordinator() const { return coordinator_; }
  const std::shared_ptr<Faults>& sharedFaults() const { return faults_; }
  // Test-only fault injection (faults.hpp); reach it with findBroker(name)->faults().
  Faults& faults() const { return *faults_; }

  // Runs `attach` on the topic `name` (canonical), created if needed, under the broker's lock.
  // Refused for the base name of a partitioned topic (attach to its partitions).
  Status attach(const std::string& name, const std::function<Status(Topic&)>& attach,
                std::shared_ptr<Topic>& topic);

  // 0 for a topic that is not partitioned or not known.
  int partitions(const std::string& name) const;

  // ---- admin (each names the topic in its error text)
  Status createPartitionedTopic(const std::string& name, int partitions);
  bool topicExists(const std::string& name) const;
  Status terminateTopic(const std::string& name);
  Status deleteTopic(const std::string& name);
  Status subscriptions(const std::string& name, std::vector<SubscriptionStats>& stats) const;
  // A non-partitioned topic or one partition (invalid_argument for a partitioned base name).
  Status cursor(const std::string& name, const std::string& subscription,
                SubscriptionCursor& out) const;

 private:
  std::shared_ptr<Topic> createTopic(const std::string& name);  // the mutex is held
  // The topics `name` stands for: its partitions, or itself; not_found when unknown.
  Status topicsOf(const std::string& name, std::vector<std::shared_ptr<Topic>>& topics) const;

  const std::string name_;
  const std::shared_ptr<Clock> clock_;
  const BrokerConfig config_;
  std::atomic<std::uint64_t> lastId_{0};
  const std::shared_ptr<Faults> faults_ = std::make_shared<Faults>();
  const std::shared_ptr<Coordinator> coordinator_;

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Topic>> topics_;
  std::map<std::string, int> partitioned_;
  std::int64_t lastLedgerId_ = 0;
};

}  // namespace reconsume::detail::embedded
