// A producer's open batches: messages sent close together wait here (at most maxPublishDelay)
// until they go out as one entry. One batch for all messages, or one per key (key-based
// batching, so that each entry carries its key for Key_Shared dispatch).
//
// A batch is due maxPublishDelay after it opened, each batch on its own (SPEC.md section 11): a
// timer that flushed every open batch when it fired cut short a batch that had opened just
// before, after the one the timer was armed for had gone out full. (The Java client's timer
// flushes only when no batch went out for maxPublishDelay.)
//
// A message joins the open batch of its key when the batch has room (maxMessages, maxBytes) and
// both agree on delay: messages without a delivery time batch together; messages with one only
// when delayedWindow > 0 and all their delivery times lie within that window (the entry is then
// delivered at the latest of them, so none is early). Otherwise add() takes the open batch out
// first, for the producer to write ahead of the message, so that entries keep the order of the
// sends.
//
// Sequence ids are not known here: the send queue gives them when an entry is admitted, and
// buildEntry() then writes them into the batch.
//
// Thread safety: not synchronised; the producer uses it under its batch mutex (senders add,
// the strand takes what is due).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/callback.hpp"
#include "common/inline_function.hpp"
#include "common/outgoing_data.hpp"
#include "protocol/batch_builder.hpp"
#include "protocol/outgoing.hpp"
#include "reconsume/message.hpp"
#include "reconsume/producer_options.hpp"

namespace reconsume::detail::pulsar {

// One message on its way into a batch. Its completion travels beside it (OutgoingEntry::dones),
// not in it: moved with the message, a completion of about a hundred bytes cost two indirect
// calls per move, and a batch's completions are taken from the entry all at once.
struct BatchedMessage {
  BatchedMessage() = default;
  // Built on the sender's thread; the payload is moved, not copied.
  BatchedMessage(OutgoingData&& message, std::optional<std::uint64_t> deliverAtMs);

  protocol::BatchBuilder::SerializedMetadata metadata;  // without sequence id
  Bytes payload;
  std::optional<std::string> key, orderingKey;
  bool keyIsBase64{false};
  std::optional<std::uint64_t> deliverAtMs;  // epoch ms; only with a delayedWindow

  // Its share of the entry at most: size prefix, metadata with a sequence id, payload.
  std::size_t bytes() const { return 4 + metadata.size() + 11 + payload.size(); }
  // The batch it belongs to under key-based batching: its partition key, else ordering key.
  std::string batchKey() const;
};

// What the send queue holds until a sequence id is given: one message, encoded already, or the
// messages of a batch.
struct OutgoingEntry {
  OutgoingEntry() = default;
  OutgoingEntry(protocol::EncodedMessage message) : single(std::move(message)) {}  // NOLINT

  protocol::EncodedMessage single;  // when `batch` is empty
  std::vector<BatchedMessage> batch;
  // The completions of `batch`'s messages, in the same order, until completion() takes them.
  std::vector<BackendCallback<MessageId>> dones;
  std::optional<std::uint64_t> deliverAtMs;  // a batch's delivery time: the latest of its messages

  std::size_t count() const { return batch.empty() ? 1 : batch.size(); }
};

class BatchContainer {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit BatchContainer(const BatchingOptions& options) : options_(options) {}

  // What add() took from the container, to be written now in this order: the open batch the
  // message could not join (it goes ahead), then the message's own batch when the message filled
  // it.
  struct Taken {
    std::optional<OutgoingEntry> closed, full;
  };

  // The time a batch opens at, read only when add() opens one: most messages join an open batch,
  // and a clock reading per send was about 2% of a publish's CPU on a virtual machine
  // (docs/PERFORMANCE.md, the twenty-eighth look). Called under the caller's lock, if any.
  using ReadNow = InlineFunction<TimePoint()>;

  // Whether `message` may join the open batch of its key now (see above).
  bool fits(const BatchedMessage& message) const;
  // Adds `message`, completed by `done`, to the open batch of its key, or to a new one that opens
  // at `now()` — after taking the open one when the message may not join it. One lookup of the
  // batch for all of it: a send comes here once. `roomBytes`: what the broker's maximum message
  // size leaves a batch (see PulsarProducer::batchRoom); a batch holds at most the smaller of it
  // and maxBytes.
  Taken add(BatchedMessage&& message, BackendCallback<MessageId>&& done, const ReadNow& now,
            std::size_t roomBytes = SIZE_MAX);

  bool empty() const { return open_.empty(); }
  std::size_t messages() const { return messages_; }

  // The batch `message` belongs to: its key under key-based batching, else "".
  std::string keyOf(const BatchedMessage& message) const;
  // Every open batch, the oldest first.
  std::vector<OutgoingEntry> takeAll();
  // When the next open batch is due (maxPublishDelay after it opened); nothing when none is open.
  std::optional<TimePoint> nextDue() const;
  // The open batches due at `now`, the oldest first; the others stay open.
  std::vector<OutgoingEntry> takeDue(TimePoint now);

  // The messages' callbacks as one for the entry: each gets the entry's id with its batch index
  // (or the failure). A batch of one message becomes a plain entry, as Java sends it.
  static BackendCallback<MessageId> completion(OutgoingEntry& entry, std::int32_t partition);

  // The entry's metadata and payload with sequence ids from `firstSequenceId` on: a batch entry
  // (compressed as `context` says), or for a batch of one a plain message.
  static protocol::EncodedMessage buildEntry(OutgoingEntry& entry, std::uint64_t firstSequenceId,
                                             const protocol::SendContext& context);
  // The same as producer `producerId`'s SEND frame, the batch written in place (not copied into
  // the frame).
  static Bytes buildFrame(OutgoingEntry& entry, std::uint64_t firstSequenceId,
                          const protocol::SendContext& context, std::uint64_t producerId);

 private:
  struct Batch {
    std::uint64_t age = 0;  // order of opening, so that takeAll() keeps the order of sends
    TimePoint due;          // maxPublishDelay after it opened
    std::vector<BatchedMessage> messages;
    std::vector<BackendCallback<MessageId>> dones;
    std::size_t bytes = 0;
    bool delayed = false;
    std::uint64_t earliestMs = 0, latestMs = 0;
  };
  // Whether `message` may join `batch` (room, delay window).
  bool joins(const Batch& batch, const BatchedMessage& message,
             std::size_t roomBytes = SIZE_MAX) const;
  // Makes `batch` a new, empty one that opens at `now` for `message`.
  void open(Batch& batch, const BatchedMessage& message, TimePoint now);
  // The batch as an entry; `batch` is left empty.
  OutgoingEntry toEntry(Batch&& batch);
  // The open batches `take` says yes to, the oldest first.
  template <typename Take>
  std::vector<OutgoingEntry> takeWhere(Take take);
  static void fill(protocol::BatchBuilder& builder, const OutgoingEntry& entry,
                   std::uint64_t firstSequenceId);

  const BatchingOptions options_;
  std::unordered_map<std::string, Batch> open_;
  // Without key-based batching: open_'s one entry while it has one (every message joins it), so
  // that a send neither makes nor hashes its key. Erasing it resets this; nothing else can
  // invalidate it (the map never holds a second entry to rehash for).
  std::optional<decltype(open_)::iterator> unkeyed_;
  std::uint64_t opened_ = 0;
  std::size_t messages_ = 0;
  // How many messages the last batch taken held: a new batch reserves room for as many. Grown one
  // push at a time, a batch of a thousand would be reallocated ten times, its messages moved each
  // time.
  std::size_t lastBatchSize_ = 1;
};

}  // namespace reconsume::detail::pulsar
