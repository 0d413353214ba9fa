// Big-endian integers as Pulsar's frames carry them (network byte order). Internal helpers.
#pragma once

#include <cstdint>
#include <string>

namespace reconsume::detail::protocol::wire {

inline std::uint32_t readU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 |
         std::uint32_t(b[3]);
}

inline std::uint16_t readU16(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint16_t>(b[0] << 8 | b[1]);
}

inline void writeU32(char* p, std::uint32_t value) {
  p[0] = static_cast<char>(value >> 24);
  p[1] = static_cast<char>(value >> 16);
  p[2] = static_cast<char>(value >> 8);
  p[3] = static_cast<char>(value);
}

inline void writeU16(char* p, std::uint16_t value) {
  p[0] = static_cast<char>(value >> 8);
  p[1] = static_cast<char>(value);
}

inline void appendU32(std::string& out, std::uint32_t value) {
  char bytes[4];
  writeU32(bytes, value);
  out.append(bytes, 4);
}

inline void appendU16(std::string& out, std::uint16_t value) {
  char bytes[2];
  writeU16(bytes, value);
  out.append(bytes, 2);
}

}  // namespace reconsume::detail::protocol::wire
