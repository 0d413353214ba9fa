// How many partitions a topic has (0: not partitioned), asked again while the failure is one
// that retrying may fix (the broker restarting) and the operation timeout allows — as the
// creation of producers and consumers does (RetryBudget). With MetadataCreation::off the broker
// creates nothing and a topic that does not exist has 0 (Lookup::partitions).
//
// Thread safety: run may be called from any thread; `done` runs once, on the network's executor.
#pragma once

#include <memory>
#include <string>

#include "common/callback.hpp"
#include "pulsar/network.hpp"

namespace reconsume::detail::pulsar {

void queryPartitions(std::shared_ptr<Network> network, std::string topic, MetadataCreation creation,
                     Callback<int> done);

}  // namespace reconsume::detail::pulsar
