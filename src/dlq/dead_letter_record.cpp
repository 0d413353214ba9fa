#include "dlq/dead_letter_record.hpp"

#include <array>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <limits>

#include "common/epoch_time.hpp"
#include "common/topic_name.hpp"
#include "reconsume/error.hpp"
#include "retry/property_keys.hpp"
#include "retry/routing.hpp"

namespace reconsume {
namespace detail::dlq {
namespace {

namespace keys = retry::keys;

using TimePoint = std::chrono::system_clock::time_point;

constexpr std::array<std::string_view, 14> kRetryKeys{
    keys::reconsumeTimes,
    keys::delayTime,
    keys::realTopic,
    keys::originMessageId,
    keys::originMessageIdLegacy,
    keys::reconsumeLevel,
    keys::reconsumeReason,
    keys::firstFailureTime,
    keys::reconsumeHistory,
    keys::deadLetterCause,
    keys::replayCount,
    keys::replayedAt,
    keys::realSubscription,
    keys::reconsumeCategory,
};

std::int64_t integerField(const boost::json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return 0;
  if (value->is_int64()) return value->as_int64();
  if (value->is_uint64()) {
    auto v = value->as_uint64();
    return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? std::numeric_limits<std::int64_t>::max()
               : static_cast<std::int64_t>(v);
  }
  return 0;
}

int clampToInt(std::int64_t value) {
  return value > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                 : static_cast<int>(value);
}

// A count property: absent or not a plain non-negative number reads as 0.
int countOf(const Message& message, std::string_view key) {
  auto text = message.property(key);
  if (!text) return 0;
  auto value = detail::retry::parsePropertyCount(*text);
  return value ? clampToInt(*value) : 0;
}

std::optional<TimePoint> timeOf(const Message& message, std::string_view key) {
  auto text = message.property(key);
  if (!text) return std::nullopt;
  auto ms = detail::retry::parsePropertyCount(*text);
  if (!ms) return std::nullopt;
  return fromEpochMillis(*ms);
}

}  // namespace

std::vector<DeadLetterHop> parseHistory(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  std::vector<DeadLetterHop> hops;
  if (ec || !value.is_array()) return hops;
  for (const auto& element : value.as_array()) {
    if (!element.is_object()) return {};
    const auto& object = element.as_object();
    DeadLetterHop hop;
    hop.count = clampToInt(integerField(object, "n"));
    hop.at = fromEpochMillis(integerField(object, "at"));
    hop.delay = std::chrono::milliseconds(integerField(object, "delay"));
    if (const auto* reason = object.if_contains("reason"); reason && reason->is_string()) {
      hop.reason = std::string(reason->as_string());
    }
    if (const auto* category = object.if_contains("category"); category && category->is_string()) {
      hop.category = std::string(category->as_string());
    }
    hops.push_back(std::move(hop));
  }
  return hops;
}

bool isRetryProperty(std::string_view key) {
  for (auto known : kRetryKeys) {
    if (key == known) return true;
  }
  return false;
}

}  // namespace detail::dlq

std::chrono::milliseconds DeadLetter::age(std::chrono::system_clock::time_point now) const {
  auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - deadLetteredAt());
  return std::max(age, std::chrono::milliseconds(0));
}

std::optional<std::string> DeadLetter::originBaseTopic() const {
  if (!originTopic) return std::nullopt;
  try {
    return detail::TopicName::parse(*originTopic).base().toString();
  } catch (const Error&) {
    return originTopic;  // written by someone else and no topic name: only equals itself
  }
}

DeadLetter DeadLetter::from(const Message& message) {
  namespace keys = detail::retry::keys;
  DeadLetter letter;
  letter.message = message;
  auto cause = message.property(keys::deadLetterCause);
  letter.cause = cause && !cause->empty() ? *cause : "unknown";
  letter.originTopic = message.property(keys::realTopic);
  letter.originMessageId = message.property(keys::originMessageId);
  if (!letter.originMessageId)
    letter.originMessageId = message.property(keys::originMessageIdLegacy);
  letter.reconsumeTimes = detail::dlq::countOf(message, keys::reconsumeTimes);
  letter.replayCount = detail::dlq::countOf(message, keys::replayCount);
  letter.firstFailure = detail::dlq::timeOf(message, keys::firstFailureTime);
  letter.replayedAt = detail::dlq::timeOf(message, keys::replayedAt);
  if (auto history = message.property(keys::reconsumeHistory)) {
    letter.history = detail::dlq::parseHistory(*history);
  }
  letter.category = message.property(keys::reconsumeCategory);
  if (auto reason = message.property(keys::reconsumeReason)) {
    letter.reason = *reason;
  } else if (!letter.history.empty()) {
    letter.reason = letter.history.back().reason;
  }
  for (const auto& [key, value] : message.properties()) {
    if (detail::dlq::isRetryProperty(key)) {
      letter.hasRetryProperties = true;
      break;
    }
  }
  return letter;
}

}  // namespace reconsume
