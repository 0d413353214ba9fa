// The message a replay republishes for a dead letter (SPEC.md §4; the rules are listed in
// reconsume/dead_letters.hpp).
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "reconsume/message.hpp"

namespace reconsume::detail::dlq {

using Properties = std::map<std::string, std::string>;

// The dead letter's properties as the replayed message carries them, at time `now`.
Properties replayProperties(const Properties& deadLetter,
                            std::chrono::system_clock::time_point now);

// The whole message: payload, key (and its base64 flag), ordering key and event time of the dead
// letter, properties from replayProperties. Published without a delay.
OutgoingMessage replayMessage(const Message& deadLetter, std::chrono::system_clock::time_point now);

}  // namespace reconsume::detail::dlq
