// Admin: the few topic-management operations the library, its tools and tests need — on the
// embedded broker directly, on Pulsar through its admin REST API (http://host:8080).
//
// Thread safety: all members may be called from several threads at once.
// Errors: throws Error — invalid_argument (bad URL or topic name), not_found (unknown topic),
// connection_lost, authentication, broker_error (with the broker's text).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reconsume/admin_options.hpp"
#include "reconsume/message.hpp"
#include "reconsume/subscription_cursor.hpp"

namespace reconsume {

namespace detail::client {
class AdminBackend;
}

class Admin {
 public:
  // "embedded://[name]" (the same broker as Client::connect of that URL), or
  // "http://host:8080" / "https://host:8443" for Pulsar.
  static Admin connect(std::string_view url, AdminOptions options = {});

  // Throws Error(errc::invalid_argument) for fewer than 1 partition or a name containing
  // "-partition-" (Pulsar refuses it), before asking the broker.
  void createPartitionedTopic(std::string_view topic, int partitions);
  // 0 for a topic that is not partitioned (or does not exist).
  int partitions(std::string_view topic);
  bool topicExists(std::string_view topic);
  // No more messages may be published (Pulsar's "terminate"): sends fail with broker_error.
  void terminateTopic(std::string_view topic);
  void deleteTopic(std::string_view topic);
  std::vector<SubscriptionStats> subscriptions(std::string_view topic);
  // What `subscription` has not acknowledged on `topic`, counted as the broker counts it: in
  // entries (Pulsar's msgBacklog), so a batch of messages counts once until all of it is
  // acknowledged; embedded:// stores each message as its own entry (SPEC.md section 11).
  std::int64_t backlog(std::string_view topic, std::string_view subscription);
  // The cursor of `subscription` on `topic`, a non-partitioned topic or one partition (ask each
  // partition of a partitioned topic on its own: invalid_argument for its base name). Reading it
  // changes nothing. not_found when the topic or the subscription does not exist.
  SubscriptionCursor cursor(std::string_view topic, std::string_view subscription);

 private:
  std::shared_ptr<detail::client::AdminBackend> backend_;
};

}  // namespace reconsume
