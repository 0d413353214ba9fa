// The JSON-lines form of a dead letter (DeadLetterQueue::toJson) and the encodings it needs.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "reconsume/dead_letter.hpp"

namespace reconsume::detail::dlq {

std::string toJsonLine(const DeadLetter& deadLetter);

// Whether every byte of `text` belongs to a valid UTF-8 sequence (no overlong forms, no
// surrogates, nothing beyond U+10FFFF). The empty text is valid.
bool isValidUtf8(std::string_view text);
// Standard base64 (RFC 4648, with padding).
std::string base64(std::string_view bytes);
// "2024-01-01T00:00:00.000Z".
std::string isoUtc(std::chrono::system_clock::time_point t);

}  // namespace reconsume::detail::dlq
