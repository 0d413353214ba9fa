// Reading the JSON answers of Pulsar's admin API. Each function throws Error(protocol_error)
// naming `what` (the request) when the answer does not have the expected shape.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reconsume/subscription_cursor.hpp"

namespace reconsume::detail::admin {

// GET .../partitions: {"partitions": n, ...} → n.
int parsePartitions(std::string_view body, std::string_view what);

// GET /admin/v2/<domain>/<tenant>/<namespace>: ["persistent://...", ...].
std::vector<std::string> parseTopicList(std::string_view body, std::string_view what);

// GET .../stats: adds each subscription's msgBacklog to `backlogs` (so the stats of several
// partitions sum up). A subscription without msgBacklog counts 0.
void addSubscriptionBacklogs(std::string_view body, std::string_view what,
                             std::map<std::string, std::int64_t>& backlogs);

// GET .../partitioned-stats?perPartition=true: the same, summed over "partitions".
void addPartitionedSubscriptionBacklogs(std::string_view body, std::string_view what,
                                        std::map<std::string, std::int64_t>& backlogs);

// GET .../internalStats: the cursor of `subscription` ("cursors" → name → markDeletePosition
// "ledger:entry" and individuallyDeletedMessages "[(l:e..l:e], ...]"), its ids carrying
// `partition`. False when the topic has no such cursor.
bool parseCursor(std::string_view body, std::string_view what, std::string_view subscription,
                 int partition, SubscriptionCursor& cursor);

}  // namespace reconsume::detail::admin
