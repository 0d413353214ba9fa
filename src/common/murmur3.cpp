#include "common/murmur3.hpp"

namespace reconsume::detail {
namespace {

constexpr std::uint32_t kC1 = 0xcc9e2d51u;
constexpr std::uint32_t kC2 = 0x1b873593u;

constexpr std::uint32_t rotateLeft(std::uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

constexpr std::uint32_t scramble(std::uint32_t k) {
  return rotateLeft(k * kC1, 15) * kC2;
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

std::int32_t murmur3Hash(std::string_view bytes) noexcept {
  return static_cast<std::int32_t>(murmur3_32(bytes, 0) & 0x7fffffffu);
}

}  // namespace reconsume::detail
