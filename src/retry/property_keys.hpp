// The message property keys of SPEC.md §2 and §4. The first six are the Java and Go clients'
// (their spelling, including the legacy "ORIGIN_MESSAGE_IDY_TIME", is part of the wire contract);
// the rest are ours.
#pragma once

#include <string_view>

namespace reconsume::detail::retry::keys {

// Shared with the Java and Go clients.
inline constexpr std::string_view reconsumeTimes = "RECONSUMETIMES";
inline constexpr std::string_view delayTime = "DELAY_TIME";
inline constexpr std::string_view realTopic = "REAL_TOPIC";
inline constexpr std::string_view originMessageId = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view originMessageIdLegacy = "ORIGIN_MESSAGE_IDY_TIME";
// Written by the Java client on its first hop (the subscription that failed the message).
inline constexpr std::string_view realSubscription = "REAL_SUBSCRIPTION";

// Ours.
inline constexpr std::string_view reconsumeLevel = "RECONSUME_LEVEL";
inline constexpr std::string_view reconsumeReason = "RECONSUME_REASON";
inline constexpr std::string_view firstFailureTime = "FIRST_FAILURE_TIME";
inline constexpr std::string_view reconsumeHistory = "RECONSUME_HISTORY";
inline constexpr std::string_view reconsumeCategory = "RECONSUME_CATEGORY";
inline constexpr std::string_view deadLetterCause = "DEAD_LETTER_CAUSE";
inline constexpr std::string_view replayCount = "REPLAY_COUNT";
inline constexpr std::string_view replayedAt = "REPLAYED_AT";

}  // namespace reconsume::detail::retry::keys
