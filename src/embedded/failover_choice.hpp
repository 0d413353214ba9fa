// Which consumer of a Failover subscription is active, chosen as the Pulsar broker chooses, so
// that the same consumers on the same topic pick the same active one on embedded:// and on
// pulsar:// (and a Java consumer of the same name counts the same).
//
// The broker sorts the consumers by name (consumers of equal names keep the order they joined
// in). On a partition, consumer (partition index modulo their number) is active, which spreads
// the partitions of a topic over the consumers. On a non-partitioned topic a hash ring decides:
// each consumer's name followed by 0..99 is hashed onto the ring (murmur3Hash; a later
// consumer of an equal hash replaces an earlier one), and the active consumer is the one at
// the topic name's hash or the first after it, wrapping around. So on a non-partitioned topic
// a consumer joining may or may not take over, depending on the names alone; never on the order.
//
// Names are compared byte by byte; for names in the Basic Multilingual Plane that is the order
// of Java's String.compareTo the broker uses.
//
// Thread safety: pure function.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace reconsume::detail::embedded {

// `sortedNames`: the consumers' names sorted as above (not empty). `topic`: the topic's full
// name (persistent://tenant/namespace/topic), `partition` its index or -1. Returns an index
// into `sortedNames`.
std::size_t failoverActiveIndex(std::string_view topic, int partition,
                                const std::vector<std::string_view>& sortedNames);

}  // namespace reconsume::detail::embedded
