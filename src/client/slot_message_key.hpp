// A message as a consumer's bookkeeping knows it: the slot (topic or partition) it came from and
// its id, hashable for unordered containers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "reconsume/message.hpp"

namespace reconsume::detail::client {

struct SlotMessageKey {
  std::size_t slot;
  MessageId id;
  bool operator==(const SlotMessageKey&) const = default;
};

struct SlotMessageKeyHash {
  std::size_t operator()(const SlotMessageKey& key) const {
    std::size_t h = std::hash<std::int64_t>()(key.id.ledger());
    h = h * 31 + std::hash<std::int64_t>()(key.id.entry());
    h = h * 31 + std::hash<std::int32_t>()(key.id.batchIndex());
    return h * 31 + key.slot;
  }
};

}  // namespace reconsume::detail::client
