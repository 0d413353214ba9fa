// What DeadLetterQueue's operations take and give back: options of the queue, of replay and of
// purge; stats; the progress and the result of a replay or a purge. SPEC.md section 4.
//
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/clock.hpp"
#include "reconsume/dead_letter.hpp"
#include "reconsume/message.hpp"

namespace reconsume {

struct DeadLetterQueueOptions {
  std::string subscription{"reconsume-dlq"};
  // Ages, REPLAYED_AT and the replay rate run on it; null: the client's clock.
  std::shared_ptr<Clock> clock;
  // How long (real time) to wait for a message the broker says is there, and for a picked dead
  // letter during replay and purge before it counts as missing.
  std::chrono::milliseconds readTimeout{10'000};
};

// Counts by age: <1m, <10m, <1h, <6h, <1d, <7d, older.
struct AgeBucket {
  std::string label;                               // "<1m" ... "older"
  std::optional<std::chrono::milliseconds> below;  // the bucket's upper bound; none for "older"
  std::size_t count{0};
};

struct DeadLetterStats {
  std::size_t count{0};
  std::uint64_t payloadBytes{0};
  std::map<std::string, std::size_t> byCause;  // "exhausted", "explicit", "unknown", ...
  // By originBaseTopic() (a topic's partitions count under the topic); "" for no REAL_TOPIC.
  std::map<std::string, std::size_t> byOrigin;
  std::map<std::string, std::size_t> byReason;    // exact reason text; "" for none
  std::map<std::string, std::size_t> byCategory;  // RECONSUME_CATEGORY; "-" for none
  std::vector<AgeBucket> ages;                    // every bucket, also the empty ones
  std::optional<std::chrono::system_clock::time_point> oldest, newest;  // dead-lettered at
  std::size_t replayedBefore{0};                                        // with REPLAY_COUNT > 0
};

enum class ReplayOutcome {
  planned,       // dry run: would be replayed
  replayed,      // republished, confirmed, acknowledged on the dead-letter subscription
  skipped,       // no destination (no REAL_TOPIC and no ReplayOptions::to): left in place
  failed,        // the republish or the acknowledgement failed: still in the dead-letter topic
  missing,       // gone before the consumer received it (acknowledged by someone else)
  notAttempted,  // the replay stopped at an earlier failure
};
std::string_view toString(ReplayOutcome outcome);

struct ReplayItem {
  MessageId deadLetterId;
  std::string destination;         // "" when skipped
  std::optional<MessageId> newId;  // replayed (also set when only the acknowledgement failed)
  ReplayOutcome outcome{ReplayOutcome::planned};
  std::string error;  // failed
};

struct ReplayProgress {
  std::size_t total{0};      // picked dead letters that have a destination
  std::size_t confirmed{0};  // republished and acknowledged so far
  std::size_t failed{0};
  std::chrono::milliseconds elapsed{0};  // on the queue's clock, since the replay started
};

struct ReplayOptions {
  DeadLetterFilter filter;
  // Every picked dead letter goes there, as given; none: each to its own REAL_TOPIC — where that
  // names a partition of a partitioned topic, to the topic, routed by key (SPEC.md §4).
  std::optional<std::string> to;
  // Republishes per second (> 0), paced on the queue's clock with a token bucket of one token;
  // none: as fast as the broker confirms.
  std::optional<double> ratePerSecond;
  std::optional<std::size_t> limit;  // at most this many (> 0)
  bool dryRun{false};                // pick and report, change nothing
  std::size_t maxInFlight{100};      // republishes awaiting confirmation at once (> 0)
  // Called on the calling thread after each republish is started and once at the end.
  std::function<void(const ReplayProgress&)> onProgress;
};

struct ReplayResult {
  std::size_t matched{0};  // picked by the scan
  std::size_t replayed{0};
  std::size_t skipped{0};
  std::size_t failed{0};
  std::size_t missing{0};
  std::size_t notAttempted{0};
  std::vector<ReplayItem> items;  // one per picked dead letter, in the order picked
  std::string error;              // the first failure, "" when none
  std::chrono::milliseconds elapsed{0};
  bool dryRun{false};
};

struct PurgeOptions {
  DeadLetterFilter filter;
  std::optional<std::size_t> limit;  // at most this many (> 0)
  bool dryRun{false};
};

struct PurgeResult {
  std::size_t matched{0};
  std::size_t purged{0};
  std::size_t failed{0};
  std::size_t missing{0};
  std::vector<MessageId> purgedIds;  // dry run: the ids that would be purged
  std::string error;
  bool dryRun{false};
};

}  // namespace reconsume
