#include "dlq/replay_destination.hpp"

#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {

ReplayDestinations::ReplayDestinations(std::optional<std::string> to, PartitionsOf partitionsOf)
    : to_(std::move(to)), partitionsOf_(std::move(partitionsOf)) {}

std::string ReplayDestinations::destinationOf(const DeadLetter& deadLetter) {
  if (to_) return *to_;
  if (!deadLetter.originTopic) return "";
  const std::string& stored = *deadLetter.originTopic;
  std::optional<TopicName> name;
  try {
    name = TopicName::parse(stored);
  } catch (const Error&) {
    return stored;  // no topic name: publishing to it fails and says so
  }
  if (name->partition() < 0) return stored;
  auto base = name->base().toString();
  auto known = partitions_.find(base);
  if (known == partitions_.end()) known = partitions_.emplace(base, partitionsOf_(base)).first;
  // Not partitioned: the suffix is part of the topic's own name (or the base does not exist).
  return known->second > 0 ? base : stored;
}

}  // namespace reconsume::detail::dlq
