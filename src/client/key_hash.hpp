// Which partition a keyed message goes to, computed as Pulsar's clients do, so that messages
// with the same key published by reconsume and by a Java or Go producer land on the same
// partition.
//
// Java's default message router (RoundRobinPartition and SinglePartition alike) sends a message
// with a key to partition signSafeMod(hash(key), numPartitions). The hash is chosen by the
// producer's HashingScheme:
// - JavaStringHash, the default of the Java and Go clients: String.hashCode() of the key
//   (h = 31 * h + c over its UTF-16 code units, 32-bit wrap-around), & Integer.MAX_VALUE;
// - Murmur3_32Hash: MurmurHash3 x86 32-bit with seed 0 over the key's UTF-8 bytes,
//   & Integer.MAX_VALUE (Pulsar's Murmur3_32Hash.makeHash).
// Both are non-negative, so signSafeMod(x, n) = ((x % n) + n) % n is plain x % n here.
//
// Keys are UTF-8 text. A key that is not valid UTF-8 is decoded for JavaStringHash as Java's
// `new String(bytes, UTF_8)` does: each maximal invalid subsequence becomes U+FFFD.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/murmur3.hpp"

namespace reconsume::detail::client {

enum class HashingScheme { javaStringHash, murmur3_32Hash };

// Pulsar's JavaStringHash.makeHash: String.hashCode() & 0x7fffffff.
std::int32_t javaStringHash(std::string_view utf8Key) noexcept;

// The partition for `key` among `numPartitions` (>= 1; throws Error(errc::invalid_argument)
// naming the count otherwise).
int partitionForKey(std::string_view key, int numPartitions,
                    HashingScheme scheme = HashingScheme::javaStringHash);

}  // namespace reconsume::detail::client
