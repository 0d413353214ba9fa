// Dead-letter inspection (SPEC.md §4): list, show, stats, export, replay and purge the dead
// letters of a dead-letter topic. An optional layer built on the public API only (Client, Reader,
// Consumer, Producer, Admin), so it behaves the same on every backend.
//
// Which dead letters exist: the messages of the topic that the dead-letter subscription
// (DeadLetterQueueOptions::subscription, default "reconsume-dlq", the one the dead-letter producer
// creates) has not acknowledged.
//
// Reading is non-destructive. scan, list, show, stats, exportJson and a dry-run replay or purge
// read the topic with a Reader, starting after the subscription's mark-delete position, and skip
// what the subscription acknowledged beyond it as the broker reports it (Admin::cursor). The
// subscription is left exactly as it was: no acknowledgement, no redelivery (so no redelivery
// count changes), no cursor move. A topic without that subscription — the Java client's
// dead-letter producer creates none unless told to — is read whole: every message in it counts,
// and warnings() says so. A partitioned topic is read partition by partition, each in the order
// stored.
//
// replay and purge act through a consumer on the dead-letter subscription (Shared; if the
// subscription does not exist it is created at the earliest message). First a scan picks the
// matching dead letters; then the consumer receives until it has seen each of them. A picked dead
// letter is acknowledged (purge), or republished and acknowledged only once the broker confirmed
// the republish (replay). Every other message the consumer receives is left unacknowledged and
// returns to the subscription when the consumer closes at the end of the call. So a replay killed
// half-way loses nothing: what was not confirmed is still in the dead-letter topic, and what was
// confirmed but not yet acknowledged is in both (at least once, never lost). Dead letters that
// arrive after the scan are not touched.
//
// Replay rewrites the properties (SPEC.md §4): RECONSUMETIMES, RECONSUME_LEVEL and
// FIRST_FAILURE_TIME are removed (the count, the level and a RetryPolicy::withTimeLimit start
// again), as are DEAD_LETTER_CAUSE, DELAY_TIME and RECONSUME_REASON (the history keeps every
// reason and its time); REAL_TOPIC, ORIGIN_MESSAGE_ID, ORIGIN_MESSAGE_IDY_TIME,
// RECONSUME_HISTORY and every other property are kept; REPLAY_COUNT becomes the
// previous value + 1 (a value that is not a number counts as 0) and REPLAYED_AT the clock's time in
// epoch ms. Payload, key (with its base64 flag), ordering key and event time are kept. A dead
// letter that fails again after a replay comes back carrying its REPLAY_COUNT, so a second replay
// shows as the second.
//
// Partitioned origins (SPEC.md §4): the Java and Go clients may write REAL_TOPIC with a partition
// suffix. The origin filter and stats work on DeadLetter::originBaseTopic() (a filter naming one
// partition selects that partition only); replay sends a dead letter whose REAL_TOPIC names a
// partition of a partitioned topic to that topic (Client::partitionsOf tells), routed by key.
//
// Limits, stated rather than hidden: a message of a batch entry counts as acknowledged only once
// the whole entry is (the broker reports acknowledgements per entry). The dead-letter producers of
// this library and of current Java clients do not batch; the Go client's does (it keeps the
// producer default, batching on), so a dead letter it wrote may share an entry with others and
// then counts until every message of that entry is acknowledged. replay and purge hold the
// non-matching messages that come before the last picked one unacknowledged while they run; Pulsar
// stops delivering to a consumer holding maxUnackedMessagesPerConsumer (default 50,000) of them,
// and picked dead letters beyond that are reported as missing.
//
// Thread safety: one call at a time per DeadLetterQueue (use one object per thread); different
// objects may be used at once. Visitors and progress callbacks run on the calling thread, with no
// lock of the library held.
// Errors: bad input (a filter value, a rate, an option) is Error(errc::invalid_argument) naming the
// value, thrown before anything is read or changed; a topic that does not exist is
// Error(errc::not_found) naming it; connection and broker failures are thrown as they come. A
// replay or purge that fails half-way does not throw: its result says what was done, what failed
// and why.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconsume/admin.hpp"
#include "reconsume/client.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/dead_letter.hpp"
#include "reconsume/dead_letter_operations.hpp"
#include "reconsume/message.hpp"

namespace reconsume {

namespace detail::dlq {
struct DeadLetterQueueState;
}

class DeadLetterQueue {
 public:
  // `topic`: the dead-letter topic (short names are completed as everywhere). Throws
  // invalid_argument for a bad topic name or option, not_found naming the topic when it does not
  // exist. A name that does not end in "-DLQ" is accepted with a warning.
  DeadLetterQueue(Client client, Admin admin, std::string_view topic,
                  DeadLetterQueueOptions options = {});

  const std::string& topic() const;  // canonical
  const std::string& subscription() const;
  // What the user should know, collected so far: a name that does not end in "-DLQ", a topic
  // without the dead-letter subscription, messages that carry no retry property at all.
  std::vector<std::string> warnings() const;

  // Calls `visit` for each matching dead letter, partition by partition, oldest first, until it
  // returns false. Returns how many it was called for.
  std::size_t scan(const DeadLetterFilter& filter,
                   const std::function<bool(const DeadLetter&)>& visit);
  std::vector<DeadLetter> list(const DeadLetterFilter& filter = {},
                               std::optional<std::size_t> limit = {});
  // The dead letter with this id; not_found naming the id when there is none.
  DeadLetter show(const MessageId& id);
  DeadLetterStats stats(const DeadLetterFilter& filter = {});
  // Writes each matching dead letter as one line of toJson(); returns how many.
  std::size_t exportJson(std::ostream& out, const DeadLetterFilter& filter = {});
  ReplayResult replay(const ReplayOptions& options = {});
  PurgeResult purge(const PurgeOptions& options);

  // One JSON object, no line break: "id", "topic", "publishTime" (epoch ms), "publishTimeUtc"
  // (ISO 8601), "eventTime" (ms or null), "key" (null when none), "keyIsBase64", "orderingKey"
  // (UTF-8 text; "orderingKeyBase64" instead when it is not valid UTF-8), "producerName",
  // "cause", "reason", "originTopic" (REAL_TOPIC as stored), "originBaseTopic" (originBaseTopic()),
  // "originMessageId", "reconsumeTimes", "replayCount",
  // "properties" (every property), "payloadSize", "payloadEncoding" ("utf-8" or "base64") and
  // "payload" (the text, or base64 when the payload is not valid UTF-8).
  static std::string toJson(const DeadLetter& deadLetter);

 private:
  std::shared_ptr<detail::dlq::DeadLetterQueueState> state_;
};

}  // namespace reconsume
