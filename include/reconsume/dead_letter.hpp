// A dead letter as stored and decoded (DeadLetter, with its retry history), and which dead letters
// a DeadLetterQueue call is about (DeadLetterFilter). SPEC.md sections 2 and 4.
//
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/message.hpp"

namespace reconsume {

// One entry of RECONSUME_HISTORY (SPEC.md §2).
struct DeadLetterHop {
  int count{0};                              // "n": RECONSUMETIMES after that hop
  std::chrono::system_clock::time_point at;  // "at"
  std::chrono::milliseconds delay{0};        // "delay" (0 for the hop to the dead-letter topic)
  std::string reason;                        // "reason" ("" when none was given)
  std::string category;                      // "category" ("" when the hop had none)
};

// A dead letter as stored, with the retry properties of SPEC.md §2 decoded. Messages written by the
// Java or Go client (none of our keys) decode with cause "unknown", no reason and no history.
struct DeadLetter {
  Message message;  // id, topic (partition), payload, key, properties, publish time

  // DEAD_LETTER_CAUSE ("exhausted", "explicit", "redelivered", "expired"); else "unknown".
  std::string cause;
  std::optional<std::string> category;  // RECONSUME_CATEGORY
  std::string reason;  // RECONSUME_REASON, else the newest history entry's reason, else ""
  std::optional<std::string> originTopic;      // REAL_TOPIC, as stored (maybe a partition)
  std::optional<std::string> originMessageId;  // ORIGIN_MESSAGE_ID (or ORIGIN_MESSAGE_IDY_TIME)
  int reconsumeTimes{0};                       // RECONSUMETIMES (0 when absent or not a number)
  int replayCount{0};                          // REPLAY_COUNT: how often it was replayed before
  std::optional<std::chrono::system_clock::time_point> firstFailure;  // FIRST_FAILURE_TIME
  std::optional<std::chrono::system_clock::time_point> replayedAt;    // REPLAYED_AT (the last)
  std::vector<DeadLetterHop> history;  // RECONSUME_HISTORY, oldest first; empty when malformed
  // Carries any retry property of SPEC.md §2 (ours or the Java and Go clients').
  bool hasRetryProperties{false};

  MessageId id() const { return message.id(); }
  // When it was dead-lettered: the publish time of the stored message.
  std::chrono::system_clock::time_point deadLetteredAt() const { return message.publishTime(); }
  // now − deadLetteredAt(), never negative.
  std::chrono::milliseconds age(std::chrono::system_clock::time_point now) const;
  // The base topic of REAL_TOPIC: its canonical name without a -partition-N suffix (the Java and Go
  // clients may write the partition a message was received on; SPEC.md §4). A value that is no
  // topic name is returned as stored; none without REAL_TOPIC.
  std::optional<std::string> originBaseTopic() const;

  static DeadLetter from(const Message& message);
};

// Which dead letters a call is about. Every field that is set must match (and); unset fields match
// everything.
struct DeadLetterFilter {
  // "exhausted", "explicit", "redelivered", "expired" or "unknown".
  std::optional<std::string> cause;
  std::optional<std::string> reason;  // ECMAScript regular expression, found anywhere in `reason`
  // REAL_TOPIC, compared as canonical names ("orders" works). Without a -partition-N suffix it
  // matches the topic and each of its partitions (originBaseTopic()); with one, that partition
  // only.
  std::optional<std::string> origin;
  std::optional<std::string> key;  // the partition key, exactly
  // RECONSUME_CATEGORY, exactly (routing by error); "-" matches dead letters without one.
  std::optional<std::string> category;
  std::optional<std::chrono::milliseconds> olderThan;  // age > olderThan
  std::optional<std::chrono::milliseconds> newerThan;  // age < newerThan
  std::vector<MessageId> ids;                          // one of these (empty: any id)

  bool empty() const {
    return !cause && !reason && !origin && !key && !category && !olderThan && !newerThan &&
           ids.empty();
  }
};

}  // namespace reconsume
