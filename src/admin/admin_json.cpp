#include "admin/admin_json.hpp"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <charconv>
#include <cstdint>
#include <optional>

#include "reconsume/error.hpp"

namespace reconsume::detail::admin {
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
      // Boost.JSON reads integers above INT64_MAX as uint64 (where to_number<int64_t> would
      // throw its own exception): they saturate. A count below zero is no backlog.
      if (value->is_uint64()) {
        backlog = static_cast<std::int64_t>(
            std::min<std::uint64_t>(value->as_uint64(), static_cast<std::uint64_t>(INT64_MAX)));
      } else if (!value->is_int64()) {
        unexpected(what, body, "msgBacklog is not an integer");
      } else if (value->as_int64() < 0) {
        unexpected(what, body, "msgBacklog is negative");
      } else {
        backlog = value->as_int64();
      }
    }
    // Summed over partitions and answers, saturating rather than overflowing.
    std::int64_t& sum = backlogs[std::string(name)];
    sum = sum > INT64_MAX - backlog ? INT64_MAX : sum + backlog;
  }
}

// "ledger:entry" (entry may be -1); nothing for anything else.
std::optional<MessageId> parsePosition(std::string_view text, int partition) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::int64_t ledger = 0, entry = 0;
  auto number = [](std::string_view digits, std::int64_t& out) {
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  };
  if (!number(text.substr(0, colon), ledger) || !number(text.substr(colon + 1), entry)) {
    return std::nullopt;
  }
  return MessageId(ledger, entry, partition);
}

// "[(3:4..3:7], (3:9..3:12]]" → the ranges; nothing when malformed. "[]" is no range.
std::optional<std::vector<AcknowledgedRange>> parseRanges(std::string_view text, int partition) {
  std::vector<AcknowledgedRange> ranges;
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  std::string_view rest = text.substr(1, text.size() - 2);
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == ',')) rest.remove_prefix(1);
    if (rest.empty()) break;
    if (rest.front() != '(') return std::nullopt;
    auto dots = rest.find("..");
    auto close = rest.find(']');
    if (dots == std::string_view::npos || close == std::string_view::npos || close < dots) {
      return std::nullopt;
    }
    auto after = parsePosition(rest.substr(1, dots - 1), partition);
    auto upTo = parsePosition(rest.substr(dots + 2, close - dots - 2), partition);
    if (!after || !upTo) return std::nullopt;
    ranges.push_back({*after, *upTo});
    rest.remove_prefix(close + 1);
  }
  return ranges;
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

bool parseCursor(std::string_view body, std::string_view what, std::string_view subscription,
                 int partition, SubscriptionCursor& cursor) {
  boost::json::value value = parse(body, what);
  if (!value.is_object()) unexpected(what, body, "not an object");
  const auto* cursors = value.as_object().if_contains("cursors");
  if (cursors == nullptr) return false;  // left out when the topic has none
  if (!cursors->is_object()) unexpected(what, body, "\"cursors\" is not an object");
  const auto* stats = cursors->as_object().if_contains(subscription);
  if (stats == nullptr) return false;
  if (!stats->is_object()) unexpected(what, body, "a cursor's stats are not an object");
  const auto& fields = stats->as_object();
  const auto* markDelete = fields.if_contains("markDeletePosition");
  if (markDelete == nullptr || !markDelete->is_string()) {
    unexpected(what, body, "the cursor has no markDeletePosition");
  }
  auto position = parsePosition(markDelete->as_string(), partition);
  if (!position) unexpected(what, body, "markDeletePosition is not ledger:entry");
  cursor.markDeletePosition = *position;
  cursor.acknowledgedRanges.clear();
  if (const auto* deleted = fields.if_contains("individuallyDeletedMessages")) {
    if (!deleted->is_string()) unexpected(what, body, "individuallyDeletedMessages is not text");
    auto ranges = parseRanges(deleted->as_string(), partition);
    if (!ranges) unexpected(what, body, "individuallyDeletedMessages is not a list of ranges");
    cursor.acknowledgedRanges = std::move(*ranges);
  }
  return true;
}

}  // namespace reconsume::detail::admin
