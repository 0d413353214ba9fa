// MurmurHash3 x86 32-bit, as Pulsar uses it: the key-to-partition hash of the
// Murmur3_32Hash scheme (client/key_hash.hpp) and the broker's hash ring that picks the active
// consumer of a Failover subscription on a non-partitioned topic (embedded/failover_choice.hpp).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace reconsume::detail {

// MurmurHash3_x86_32 over the bytes (no masking).
std::uint32_t murmur3_32(std::string_view bytes, std::uint32_t seed = 0) noexcept;

// Pulsar's Murmur3_32Hash.makeHash: murmur3_32(bytes, 0) & 0x7fffffff, never negative.
std::int32_t murmur3Hash(std::string_view bytes) noexcept;

}  // namespace reconsume::detail
