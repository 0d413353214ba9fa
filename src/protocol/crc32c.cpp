#include "protocol/crc32c.hpp"

#include <array>

namespace reconsume::detail::protocol {
namespace {

// The reflected form of the Castagnoli polynomial 0x1EDC6F41.
constexpr std::uint32_t kPolynomial = 0x82F63B78u;

// tables[0] is the classic byte-at-a-time table; tables[k][b] is the CRC register after byte b
// followed by k zero bytes, which lets the main loop fold 8 input bytes with 8 independent
// look-ups (slicing-by-8).
using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables makeTables() {
  Tables tables{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    tables[0][byte] = crc;
  }
  for (std::size_t k = 1; k < tables.size(); ++k) {
    for (std::size_t byte = 0; byte < 256; ++byte) {
      const std::uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xffu];
    }
  }
  return tables;
}

constexpr Tables kTables = makeTables();

// Assembled byte by byte so the result does not depend on the host's byte order; compilers turn
// this into one load on little-endian machines.
inline std::uint32_t loadLittleEndian32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

#if defined(__x86_64__)
bool detectSse42() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#endif

}  // namespace

// Defined in crc32c_sse42.cpp, the one file compiled with -msse4.2.
std::uint32_t crc32cSse42(std::uint32_t seed, const void* data, std::size_t size) noexcept;

std::uint32_t crc32cPortable(std::uint32_t seed, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t crc = ~seed;
  while (size >= 8) {
    const std::uint32_t low = loadLittleEndian32(p) ^ crc;
    const std::uint32_t high = loadLittleEndian32(p + 4);
    crc = kTables[7][low & 0xffu] ^ kTables[6][(low >> 8) & 0xffu] ^
          kTables[5][(low >> 16) & 0xffu] ^ kTables[4][low >> 24] ^ kTables[3][high & 0xffu] ^
          kTables[2][(high >> 8) & 0xffu] ^ kTables[1][(high >> 16) & 0xffu] ^
          kTables[0][high >> 24];
    p += 8;
    size -= 8;
  }
  while (size-- > 0) crc = kTables[0][(crc ^ *p++) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

bool hasHardwareCrc32c() noexcept {
#if defined(__x86_64__)
  static const bool has = detectSse42();
  return has;
#else
  return false;
#endif
}

std::uint32_t crc32cHardware(std::uint32_t seed, const void* data, std::size_t size) noexcept {
#if defined(__x86_64__)
  return crc32cSse42(seed, data, size);
#else
  return crc32cPortable(seed, data, size);
#endif
}

std::uint32_t crc32c(std::uint32_t seed, const void* data, std::size_t size) noexcept {
  static const auto implementation = hasHardwareCrc32c() ? &crc32cHardware : &crc32cPortable;
  return implementation(seed, data, size);
}

}  // namespace reconsume::detail::protocol
