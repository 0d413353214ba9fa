#include "client/key_hash.hpp"

#include <string>

#include "reconsume/error.hpp"

namespace reconsume::detail::client {
namespace {

constexpr std::uint32_t kC1 = 0xcc9e2d51u;
constexpr std::uint32_t kC2 = 0x1b873593u;

constexpr std::uint32_t rotateLeft(std::uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

constexpr std::uint32_t scramble(std::uint32_t k) {
  return rotateLeft(k * kC1, 15) * kC2;
}

// Calls `emit` with each UTF-16 code unit of the UTF-8 text, replacing each maximal invalid
// subsequence with U+FFFD (Unicode's recommended practice, which Java's decoder follows).
template <typename Emit>
void forEachUtf16Unit(std::string_view text, Emit emit) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned b0 = p[i];
    if (b0 < 0x80) {
      emit(static_cast<std::uint16_t>(b0));
      ++i;
      continue;
    }
    int length = 0;
    unsigned low = 0x80, high = 0xBF;  // allowed range of the second byte
    std::uint32_t code = 0;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      length = 2, code = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      length = 3, code = b0 & 0x0F;
      if (b0 == 0xE0) low = 0xA0;   // no overlong forms
      if (b0 == 0xED) high = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      length = 4, code = b0 & 0x07;
      if (b0 == 0xF0) low = 0x90;   // no overlong forms
      if (b0 == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    }
    std::size_t consumed = 1;
    bool valid = length > 0;
    for (int k = 1; valid && k < length; ++k) {
      const std::size_t at = i + static_cast<std::size_t>(k);
      const unsigned lo = k == 1 ? low : 0x80, hi = k == 1 ? high : 0xBF;
      if (at >= n || p[at] < lo || p[at] > hi) {
        valid = false;
        break;
      }
      code = (code << 6) | (p[at] & 0x3F);
      ++consumed;
    }
    i += consumed;
    if (!valid) {
      emit(0xFFFD);
    } else if (code >= 0x10000) {
      code -= 0x10000;
      emit(static_cast<std::uint16_t>(0xD800 + (code >> 10)));
      emit(static_cast<std::uint16_t>(0xDC00 + (code & 0x3FF)));
    } else {
      emit(static_cast<std::uint16_t>(code));
    }
  }
}

}  // namespace

std::uint32_t murmur3_32(std::string_view bytes, std::uint32_t seed) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  std::uint32_t h = seed;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const std::uint32_t k = std::uint32_t(p[i]) | std::uint32_t(p[i + 1]) << 8 |
                            std::uint32_t(p[i + 2]) << 16 | std::uint32_t(p[i + 3]) << 24;
    h ^= scramble(k);
    h = rotateLeft(h, 13) * 5 + 0xe6546b64u;
  }
  std::uint32_t tail = 0;
  for (std::size_t k = 0; i + k < n; ++k) tail |= std::uint32_t(p[i + k]) << (8 * k);
  h ^= scramble(tail);  // zero when there is no tail, and scramble(0) == 0
  h ^= static_cast<std::uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

std::int32_t murmur3Hash(std::string_view key) noexcept {
  return static_cast<std::int32_t>(murmur3_32(key, 0) & 0x7fffffffu);
}

std::int32_t javaStringHash(std::string_view utf8Key) noexcept {
  std::uint32_t h = 0;
  forEachUtf16Unit(utf8Key, [&h](std::uint16_t unit) { h = 31 * h + unit; });
  return static_cast<std::int32_t>(h & 0x7fffffffu);
}

int partitionForKey(std::string_view key, int numPartitions, HashingScheme scheme) {
  if (numPartitions < 1) {
    throw Error(errc::invalid_argument,
                "partition count " + std::to_string(numPartitions) + " must be at least 1");
  }
  const std::int32_t hash =
      scheme == HashingScheme::murmur3_32Hash ? murmur3Hash(key) : javaStringHash(key);
  return hash % numPartitions;
}

}  // namespace reconsume::detail::client
