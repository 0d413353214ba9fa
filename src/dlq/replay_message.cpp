#include "dlq/replay_message.hpp"

#include <array>
#include <limits>

#include "retry/property_keys.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::dlq {
namespace {

namespace keys = detail::retry::keys;

// The retry count, the level and the time limit (counted from FIRST_FAILURE_TIME) start again:
// a replayed message gets its retries as new work does, however long it waited in the
// dead-letter topic. The cause, the delay and the last reason described the trip that ended
// there (RECONSUME_HISTORY keeps the reasons and their times).
constexpr std::array<std::string_view, 6> kRemoved{
    keys::reconsumeTimes,  keys::reconsumeLevel, keys::firstFailureTime,
    keys::deadLetterCause, keys::delayTime,      keys::reconsumeReason,
};

}  // namespace

Properties replayProperties(const Properties& deadLetter,
                            std::chrono::system_clock::time_point now) {
  Properties out = deadLetter;
  for (auto key : kRemoved) out.erase(std::string(key));
  std::int64_t previous = 0;
  if (auto found = deadLetter.find(std::string(keys::replayCount)); found != deadLetter.end()) {
    // Not a number (written by hand, or by someone else): counted as never replayed.
    previous = retry::parsePropertyCount(found->second).value_or(0);
  }
  auto next = previous < std::numeric_limits<std::int64_t>::max() ? previous + 1 : previous;
  out.insert_or_assign(std::string(keys::replayCount), std::to_string(next));
  auto nowMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  out.insert_or_assign(std::string(keys::replayedAt), std::to_string(nowMs));
  return out;
}

OutgoingMessage replayMessage(const Message& deadLetter,
                              std::chrono::system_clock::time_point now) {
  OutgoingMessage message;
  message.payload = std::string(deadLetter.data());
  message.key = deadLetter.key();
  message.keyIsBase64 = deadLetter.keyIsBase64();
  message.orderingKey = deadLetter.orderingKey();
  message.eventTime = deadLetter.eventTime();
  message.properties = replayProperties(deadLetter.properties(), now);
  return message;
}

}  // namespace reconsume::detail::dlq
