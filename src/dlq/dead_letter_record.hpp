// Decoding a stored dead letter (DeadLetter::from, in the .cpp): its cause, reason, origin,
// counts and RECONSUME_HISTORY. The pieces are here for the other parts of the layer and tests.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "reconsume/dead_letter.hpp"

namespace reconsume::detail::dlq {

// The entries of a RECONSUME_HISTORY value, oldest first. A value that is not a JSON array of
// objects (malformed, or written by someone else) gives no entries; fields that are missing or of
// another type read as 0 or "" (an entry is shown rather than the whole history dropped).
std::vector<DeadLetterHop> parseHistory(std::string_view text);

// Whether `key` is a retry property of SPEC.md §2: ours, or one the Java and Go clients write
// (including Java's REAL_SUBSCRIPTION).
bool isRetryProperty(std::string_view key);

}  // namespace reconsume::detail::dlq
