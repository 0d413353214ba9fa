#include "embedded/failover_choice.hpp"

#include <map>
#include <string>

#include "common/murmur3.hpp"

namespace reconsume::detail::embedded {

namespace {
constexpr int kReplicasPerConsumer = 100;  // the broker's CONSUMER_CONSISTENT_HASH_REPLICAS
}

std::size_t failoverActiveIndex(std::string_view topic, int partition,
                                const std::vector<std::string_view>& sortedNames) {
  if (partition >= 0) return static_cast<std::size_t>(partition) % sortedNames.size();
  std::map<std::int32_t, std::size_t> ring;
  std::string key;
  for (std::size_t i = 0; i < sortedNames.size(); ++i) {
    for (int replica = 0; replica < kReplicasPerConsumer; ++replica) {
      key.assign(sortedNames[i]);
      key += std::to_string(replica);
      ring[murmur3Hash(key)] = i;
    }
  }
  auto at = ring.lower_bound(murmur3Hash(topic));
  return at != ring.end() ? at->second : ring.begin()->second;
}

}  // namespace reconsume::detail::embedded
