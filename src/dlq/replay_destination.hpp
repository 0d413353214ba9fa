// Where replay sends a dead letter (SPEC.md §4 "Partitioned origins"): the chosen topic; else
// REAL_TOPIC, except a partition's name (…-partition-N) goes to its topic when the broker says that
// topic is partitioned, so that the partitioned producer routes it by key.
//
// Thread safety: one thread (the replaying one); the partition counts asked are kept per base
// topic for the life of the object (one replay).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "reconsume/dead_letter.hpp"

namespace reconsume::detail::dlq {

class ReplayDestinations {
 public:
  // `partitionsOf`: the broker's partition count of a topic (0: not partitioned or unknown), as
  // Client::partitionsOf; its errors are thrown from destinationOf.
  using PartitionsOf = std::function<int(const std::string& topic)>;

  // `to`: canonical, or none.
  ReplayDestinations(std::optional<std::string> to, PartitionsOf partitionsOf);

  // "" when there is none (no REAL_TOPIC and no chosen topic: the dead letter is skipped).
  std::string destinationOf(const DeadLetter& deadLetter);

 private:
  std::optional<std::string> to_;
  PartitionsOf partitionsOf_;
  std::map<std::string, int> partitions_;  // by base topic, asked once
};

}  // namespace reconsume::detail::dlq
