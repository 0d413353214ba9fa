// The SSE4.2 path of CRC32C. This file alone is compiled with -msse4.2; crc32c.cpp only calls it
// after checking that the CPU has the instruction.
#if defined(__x86_64__)

#include <nmmintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reconsume::detail::protocol {
namespace {

// The crc32 instruction has a latency of 3 cycles but can start one every cycle, so one
// dependent chain uses a third of it. Large inputs are therefore cut into rounds of three lanes
// of kLane bytes, checksummed side by side, and the lane results merged.
constexpr std::size_t kLane = 256;

// Merging: the CRC register is linear, so the register after lanes A then B is
// shift(regA) ^ regB, where shift(r) is r run through kLane zero bytes. shift is itself linear in
// the 32 bits of r, so it is tabulated per byte of r.
class LaneShift {
 public:
  LaneShift() {
    std::uint32_t basis[32];
    for (int bit = 0; bit < 32; ++bit) {
      std::uint64_t reg = std::uint64_t{1} << bit;
      for (std::size_t n = 0; n < kLane / 8; ++n) reg = _mm_crc32_u64(reg, 0);
      basis[bit] = static_cast<std::uint32_t>(reg);
    }
    for (int k = 0; k < 4; ++k) {
      for (int byte = 0; byte < 256; ++byte) {
        std::uint32_t value = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if ((byte >> bit) & 1) value ^= basis[8 * k + bit];
        }
        table_[k][byte] = value;
      }
    }
  }
  std::uint32_t operator()(std::uint32_t reg) const {
    return table_[0][reg & 0xffu] ^ table_[1][(reg >> 8) & 0xffu] ^ table_[2][(reg >> 16) & 0xffu] ^
           table_[3][reg >> 24];
  }

 private:
  std::uint32_t table_[4][256];
};

inline std::uint64_t load64(const unsigned char* p) {
  std::uint64_t value;  // x86 is little-endian, the order the CRC consumes bytes in
  std::memcpy(&value, p, sizeof value);
  return value;
}

}  // namespace

std::uint32_t crc32cSse42(std::uint32_t seed, const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t crc = ~seed;
  if (size >= 3 * kLane) {
    static const LaneShift shift;
    do {
      std::uint64_t a = crc, b = 0, c = 0;
      for (std::size_t i = 0; i < kLane; i += 8) {
        a = _mm_crc32_u64(a, load64(p + i));
        b = _mm_crc32_u64(b, load64(p + kLane + i));
        c = _mm_crc32_u64(c, load64(p + 2 * kLane + i));
      }
      crc = shift(shift(static_cast<std::uint32_t>(a)) ^ static_cast<std::uint32_t>(b)) ^
            static_cast<std::uint32_t>(c);
      p += 3 * kLane;
      size -= 3 * kLane;
    } while (size >= 3 * kLane);
  }
  std::uint64_t reg = crc;
  for (; size >= 8; p += 8, size -= 8) reg = _mm_crc32_u64(reg, load64(p));
  crc = static_cast<std::uint32_t>(reg);
  for (; size > 0; ++p, --size) crc = _mm_crc32_u8(crc, *p);
  return ~crc;
}

}  // namespace reconsume::detail::protocol

#endif
