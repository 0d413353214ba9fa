#include "client/key_hash.hpp"

#include <string>

#include "reconsume/error.hpp"

namespace reconsume::detail::client {
namespace {

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
