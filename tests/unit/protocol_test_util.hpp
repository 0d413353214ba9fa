// Helpers shared by the protocol tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace reconsume::detail::protocol::test {

// "00 00 00 09 08 12" -> the bytes; spaces are ignored.
inline std::string bytes(std::string_view hex) {
  std::string out;
  int high = -1;
  for (char c : hex) {
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (v < 0) continue;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high << 4 | v));
      high = -1;
    }
  }
  return out;
}

// The bytes as "00 00 00 09 ...", for readable failure messages.
inline std::string hex(std::string_view data) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : data) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

}  // namespace reconsume::detail::protocol::test
