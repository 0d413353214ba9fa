#include "admin/admin_json.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "reconsume/error.hpp"

namespace reconsume::detail::http {
namespace {

constexpr std::size_t kQuoted = 200;

[[noreturn]] void unexpected(std::string_view what, std::string_view body, std::string_view why) {
  std::string quoted(body.substr(0, kQuoted));
  if (body.size() > kQuoted) quoted += "...";
  throw Error(errc::protocol_error, "unexpected answer to " + std::string(what) + " (" +
                                        std::string(why) + "): '" + quoted + "'");
}

boost::json::value parse(std::string_view body, std::string_view what) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(body, ec);
  if (ec) unexpected(what, body, "not JSON: " + ec.message());
  return value;
}

void addBacklogs(const boost::json::object& stats, std::string_view what, std::string_view body,
                 std::map<std::string, std::int64_t>& backlogs) {
  const auto* subscriptions = stats.if_contains("subscriptions");
  if (subscriptions == nullptr) return;  // Pulsar leaves the field out when there are none
  if (!subscriptions->is_object()) unexpected(what, body, "\"subscriptions\" is not an object");
  for (const auto& [name, sub] : subscriptions->as_object()) {
    std::int64_t backlog = 0;
    if (!sub.is_object()) unexpected(what, body, "a subscription's stats are not an object");
    if (const auto* value = sub.as_object().if_contains("msgBacklog")) {
      if (!value->is_int64() && !value->is_uint64()) {
        unexpected(what, body, "msgBacklog is not an integer");
      }
      backlog = value->to_number<std::int64_t>();
    }
    backlogs[std::string(name)] += backlog;
  }
}

}  // namespace

int parsePartitions(std::string_view body, std::string_view what) {
  boost::json::value value = parse(body, what);
  const auto* partitions =
      value.is_object() ? value.as_object().if_contains("partitions") : nullptr;
  if (partitions == nullptr || !partitions->is_int64() || partitions->as_int64() < 0 ||
      partitions->as_int64() > INT32_MAX) {
    unexpected(what, body, "no non-negative \"partitions\" count");
  }
  return static_cast<int>(partitions->as_int64());
}

std::vector<std::string> parseTopicList(std::string_view body, std::string_view what) {
  boost::json::value value = parse(body, what);
  if (!value.is_array()) unexpected(what, body, "not a list");
  std::vector<std::string> topics;
  for (const auto& item : value.as_array()) {
    if (!item.is_string()) unexpected(what, body, "a topic name is not a string");
    topics.emplace_back(item.as_string());
  }
  return topics;
}

void addSubscriptionBacklogs(std::string_view body, std::string_view what,
                             std::map<std::string, std::int64_t>& backlogs) {
  boost::json::value value = parse(body, what);
  if (!value.is_object()) unexpected(what, body, "not an object");
  addBacklogs(value.as_object(), what, body, backlogs);
}

void addPartitionedSubscriptionBacklogs(std::string_view body, std::string_view what,
                                        std::map<std::string, std::int64_t>& backlogs) {
  boost::json::value value = parse(body, what);
  if (!value.is_object()) unexpected(what, body, "not an object");
  const auto* partitions = value.as_object().if_contains("partitions");
  if (partitions == nullptr) return;  // no partition has been created yet
  if (!partitions->is_object()) unexpected(what, body, "\"partitions\" is not an object");
  for (const auto& [name, stats] : partitions->as_object()) {
    if (!stats.is_object()) unexpected(what, body, "a partition's stats are not an object");
    addBacklogs(stats.as_object(), what, body, backlogs);
  }
}

}  // namespace reconsume::detail::http
