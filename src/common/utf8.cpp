#include "common/utf8.hpp"

#include <cstdint>

namespace reconsume::detail {
namespace {

bool isContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::size_t utf8SequenceLength(std::string_view text) {
  if (text.empty()) return 0;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length;
  std::uint32_t code;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if (!isContinuation(byte(i))) return 0;
    code = (code << 6) | (byte(i) & 0x3F);
  }
  if (length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) return 0;
  if (length == 4 && (code < 0x10000 || code > 0x10FFFF)) return 0;
  return length;
}

std::string_view truncateUtf8(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text;
  std::size_t end = maxBytes;
  // The first byte left out is a continuation byte: its character started before the cut.
  // A UTF-8 character has at most 3 continuation bytes; beyond that the bytes are not UTF-8.
  for (int steps = 0; steps < 4 && end > 0 && isContinuation(text[end]); ++steps) --end;
  if (isContinuation(text[end])) end = maxBytes;
  return text.substr(0, end);
}

void appendJsonString(std::string& out, std::string_view text, std::size_t maxBytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t budget = maxBytes < 2 ? 0 : maxBytes - 2;  // the two quotes
  out += '"';
  char escaped[8];
  for (std::size_t at = 0; at < text.size();) {
    // A run of printable ASCII is copied as it is, in one go.
    std::size_t run = at;
    while (run < text.size() && run - at < budget) {
      auto c = static_cast<unsigned char>(text[run]);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
      ++run;
    }
    if (run > at) {
      out.append(text, at, run - at);
      budget -= run - at;
      at = run;
      continue;
    }
    std::string_view piece;
    std::size_t length = utf8SequenceLength(text.substr(at));
    auto c = static_cast<unsigned char>(text[at]);
    if (length == 0) {
      piece = kReplacement;
      length = 1;
    } else if (c == '"' || c == '\\') {
      escaped[0] = '\\';
      escaped[1] = static_cast<char>(c);
      piece = std::string_view(escaped, 2);
    } else if (c < 0x20) {
      escaped[0] = '\\';
      switch (c) {
        case '\n':
          escaped[1] = 'n';
          piece = std::string_view(escaped, 2);
          break;
        case '\r':
          escaped[1] = 'r';
          piece = std::string_view(escaped, 2);
          break;
        case '\t':
          escaped[1] = 't';
          piece = std::string_view(escaped, 2);
          break;
        default:
          escaped[1] = 'u';
          escaped[2] = '0';
          escaped[3] = '0';
          escaped[4] = kHex[c >> 4];
          escaped[5] = kHex[c & 0xF];
          piece = std::string_view(escaped, 6);
      }
    } else {
      piece = text.substr(at, length);
    }
    if (piece.size() > budget) break;
    budget -= piece.size();
    out += piece;
    at += length;
  }
  out += '"';
}

}  // namespace reconsume::detail
