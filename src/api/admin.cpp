#include "reconsume/admin.hpp"

#include "admin/http_admin.hpp"
#include "api/handle.hpp"
#include "common/topic_name.hpp"
#include "embedded/embedded_backend.hpp"

namespace reconsume {

using detail::api::stateOf;

namespace {

// Cursor positions are entries: the batch index and the partition do not take part.
bool entryBefore(const MessageId& a, const MessageId& b) {
  return a.ledger() < b.ledger() || (a.ledger() == b.ledger() && a.entry() < b.entry());
}

}  // namespace

bool SubscriptionCursor::isAcknowledged(const MessageId& id) const {
  if (!entryBefore(markDeletePosition, id)) return true;
  for (const auto& range : acknowledgedRanges) {
    if (entryBefore(range.after, id) && !entryBefore(range.upTo, id)) return true;
  }
  return false;
}

Admin Admin::connect(std::string_view url, AdminOptions options) {
  auto parsed = detail::ServiceUrl::parse(url);
  Admin admin;
  switch (parsed.kind) {
    case detail::ServiceUrl::Kind::embedded:
      admin.backend_ = detail::embedded::connectEmbeddedAdmin(parsed);
      break;
    case detail::ServiceUrl::Kind::http:
    case detail::ServiceUrl::Kind::https:
      admin.backend_ = detail::admin::connectHttpAdmin(parsed, options);
      break;
    default:
      throw Error(errc::invalid_argument,
                  "admin URL '" + std::string(url) +
                      "' must be embedded://[name], http://host:port or https://host:port");
  }
  return admin;
}

void Admin::createPartitionedTopic(std::string_view topic, int partitions) {
  if (partitions < 1) {
    throw Error(errc::invalid_argument, "a partitioned topic needs at least 1 partition, not " +
                                            std::to_string(partitions) + " (topic '" +
                                            std::string(topic) + "')");
  }
  auto name = detail::canonicalTopic(topic);
  // Pulsar refuses such a name (412): its partitions' names would be ambiguous. Checked here so
  // that both backends say so alike, before anything is asked.
  if (name.find("-partition-") != std::string::npos) {
    throw Error(errc::invalid_argument,
                "a partitioned topic's name must not contain '-partition-': '" + name + "'");
  }
  stateOf(backend_, "Admin").createPartitionedTopic(name, partitions);
}

int Admin::partitions(std::string_view topic) {
  return stateOf(backend_, "Admin").partitions(detail::canonicalTopic(topic));
}

bool Admin::topicExists(std::string_view topic) {
  return stateOf(backend_, "Admin").topicExists(detail::canonicalTopic(topic));
}

void Admin::terminateTopic(std::string_view topic) {
  stateOf(backend_, "Admin").terminateTopic(detail::canonicalTopic(topic));
}

void Admin::deleteTopic(std::string_view topic) {
  stateOf(backend_, "Admin").deleteTopic(detail::canonicalTopic(topic));
}

std::vector<SubscriptionStats> Admin::subscriptions(std::string_view topic) {
  return stateOf(backend_, "Admin").subscriptions(detail::canonicalTopic(topic));
}

std::int64_t Admin::backlog(std::string_view topic, std::string_view subscription) {
  for (const auto& stats : subscriptions(topic)) {
    if (stats.name == subscription) return stats.backlog;
  }
  throw Error(errc::not_found, "topic '" + std::string(topic) + "' has no subscription '" +
                                   std::string(subscription) + "'");
}

SubscriptionCursor Admin::cursor(std::string_view topic, std::string_view subscription) {
  if (subscription.empty()) {
    throw Error(errc::invalid_argument,
                "the subscription name is empty (cursor of topic '" + std::string(topic) + "')");
  }
  return stateOf(backend_, "Admin")
      .cursor(detail::canonicalTopic(topic), std::string(subscription));
}

}  // namespace reconsume
