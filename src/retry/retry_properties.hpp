// The properties of the message reconsumeLater or deadLetter publishes (SPEC.md §2).
//
// Thread safety: pure function.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "common/properties.hpp"
#include "reconsume/message.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

// RECONSUME_REASON and each history entry's reason are cut to this many bytes (UTF-8 safe).
inline constexpr std::size_t kReasonMaxBytes = 1024;

// The new message's properties: every incoming property, then the keys of SPEC.md §2 for `route`,
// then `custom`, which overrides everything except RECONSUMETIMES. `originTopic` is the topic the
// message was received on (may end in -partition-N) and `subscription` the consumer's, written as
// REAL_SUBSCRIPTION on the first hop (as the Java client does); `now` is the clock's time. Messages
// written by the Java or Go client (none of our keys) are handled as if our keys were absent.
//
// Also: ORIGIN_MESSAGE_ID and ORIGIN_MESSAGE_IDY_TIME hold the same value, so when only one is
// present (older Java and Go clients write only the legacy key) its value fills the other; on the
// retry topic a hop without a level (an explicit delay, or a policy without a table)
// removes an incoming RECONSUME_LEVEL, so the next "next step" counts from RECONSUMETIMES; a hop
// without a reason removes an incoming RECONSUME_REASON (the history keeps it); a retry removes an
// incoming DEAD_LETTER_CAUSE (it described an earlier trip to the dead-letter topic).
//
// Throws Error(errc::invalid_argument) naming the topic when REAL_TOPIC must be written and
// `originTopic` is not a valid topic name.
Properties buildProperties(const Properties& incoming, std::string_view originTopic,
                           std::string_view subscription, const MessageId& originId,
                           const Route& route, std::chrono::system_clock::time_point now,
                           std::string_view reason,
                           const std::map<std::string, std::string>& custom);

}  // namespace reconsume::detail::retry
