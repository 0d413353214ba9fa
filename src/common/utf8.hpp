// UTF-8 helpers for text the library stores in message properties (reasons, history).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reconsume::detail {

// The length of the valid UTF-8 sequence at the start of `text` (1 to 4), or 0 when it does not
// start with one (a bad lead byte, a missing continuation byte, an overlong form, a surrogate, a
// code point beyond U+10FFFF, or an empty text).
std::size_t utf8SequenceLength(std::string_view text);

// `text` cut to at most `maxBytes` bytes without splitting a UTF-8 sequence: when the cut falls
// inside a multi-byte character, that whole character is left out. Bytes that are not valid
// UTF-8 are kept as they are (the cut then falls at `maxBytes`).
std::string_view truncateUtf8(std::string_view text, std::size_t maxBytes);

// Appends `text` to `out` as a JSON string literal (with the quotes). Invalid UTF-8 becomes
// U+FFFD, so the result is always valid JSON. Characters are left out from the end, whole, so that
// the literal takes at most `maxBytes` bytes (at least the two quotes are always written).
void appendJsonString(std::string& out, std::string_view text,
                      std::size_t maxBytes = std::string::npos);

}  // namespace reconsume::detail
