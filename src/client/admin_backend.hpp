// The seam behind reconsume::Admin: the embedded broker's own operations, or Pulsar's admin REST
// API. Blocking calls; each throws Error (see admin.hpp for which).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reconsume/subscription_cursor.hpp"

namespace reconsume::detail::client {

class AdminBackend {
 public:
  virtual ~AdminBackend() = default;
  // Topics are passed in canonical full form (persistent://tenant/ns/name).
  virtual void createPartitionedTopic(const std::string& topic, int partitions) = 0;
  virtual int partitions(const std::string& topic) = 0;
  virtual bool topicExists(const std::string& topic) = 0;
  virtual void terminateTopic(const std::string& topic) = 0;
  virtual void deleteTopic(const std::string& topic) = 0;
  virtual std::vector<SubscriptionStats> subscriptions(const std::string& topic) = 0;
  // A non-partitioned topic or one partition; see Admin::cursor.
  virtual SubscriptionCursor cursor(const std::string& topic, const std::string& subscription) = 0;
};

}  // namespace reconsume::detail::client
