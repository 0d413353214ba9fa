#include "dlq/filter.hpp"

#include <algorithm>

#include "common/duration.hpp"
#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {
namespace {

void checkAgeBound(const std::optional<std::chrono::milliseconds>& bound, const char* name) {
  if (bound && bound->count() < 0) {
    throw Error(errc::invalid_argument, std::string(name) + " " + formatDuration(*bound) +
                                            " is negative; an age bound must be 0 or more");
  }
}

// An origin written by someone else may not be a valid name: it then only equals itself.
std::string canonicalOrSame(const std::string& topic) {
  try {
    return canonicalTopic(topic);
  } catch (const Error&) {
    return topic;
  }
}

}  // namespace

CompiledFilter::CompiledFilter(const DeadLetterFilter& filter) : filter_(filter) {
  if (filter.cause && *filter.cause != "exhausted" && *filter.cause != "explicit" &&
      *filter.cause != "redelivered" && *filter.cause != "expired" && *filter.cause != "unknown") {
    throw Error(errc::invalid_argument, "cause '" + *filter.cause +
                                            "' is not one of exhausted, explicit, redelivered, "
                                            "expired, unknown");
  }
  if (filter.reason) {
    try {
      reason_.emplace(*filter.reason, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw Error(errc::invalid_argument, "reason pattern '" + *filter.reason +
                                              "' is not a valid regular expression: " + e.what());
    }
  }
  if (filter.origin) {
    try {
      auto name = TopicName::parse(*filter.origin);
      origin_ = name.toString();
      originIsPartition_ = name.partition() >= 0;
    } catch (const Error& e) {
      throw Error(errc::invalid_argument,
                  "origin '" + *filter.origin + "' is not a topic name: " + e.what());
    }
  }
  checkAgeBound(filter.olderThan, "older-than");
  checkAgeBound(filter.newerThan, "newer-than");
}

bool CompiledFilter::matches(const DeadLetter& deadLetter,
                             std::chrono::system_clock::time_point now) const {
  if (filter_.cause && deadLetter.cause != *filter_.cause) return false;
  if (reason_ && !std::regex_search(deadLetter.reason, *reason_)) return false;
  if (origin_) {
    if (!deadLetter.originTopic) return false;
    // A partition asked for is that partition only; a topic is itself and each of its partitions.
    auto stored = originIsPartition_ ? canonicalOrSame(*deadLetter.originTopic)
                                     : *deadLetter.originBaseTopic();
    if (stored != *origin_) return false;
  }
  if (filter_.key && deadLetter.message.key() != filter_.key) return false;
  if (filter_.category && deadLetter.category.value_or("-") != *filter_.category) return false;
  if (filter_.olderThan || filter_.newerThan) {
    auto age = deadLetter.age(now);
    if (filter_.olderThan && !(age > *filter_.olderThan)) return false;
    if (filter_.newerThan && !(age < *filter_.newerThan)) return false;
  }
  if (!filter_.ids.empty() &&
      std::find(filter_.ids.begin(), filter_.ids.end(), deadLetter.id()) == filter_.ids.end()) {
    return false;
  }
  return true;
}

}  // namespace reconsume::detail::dlq
