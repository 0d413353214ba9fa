// Key_Shared routing: the key a message sticks by, and a stable 64-bit hash of it.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/message_data.hpp"

namespace reconsume::detail::embedded {

// Pulsar's choice: the ordering key if set, else the partition key, else the empty key (so every
// message without a key goes to the same consumer).
inline std::string_view stickyKeyOf(const MessageData& message) {
  if (message.orderingKey) return *message.orderingKey;
  if (message.partitionKey) return *message.partitionKey;
  return {};
}

// Spreads consecutive values over the whole range (the splitmix64 finaliser).
inline std::uint64_t mixBits(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// FNV-1a over the bytes, then mixed: stable across runs and platforms.
inline std::uint64_t stickyKeyHash(std::string_view key) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return mixBits(hash);
}

}  // namespace reconsume::detail::embedded
