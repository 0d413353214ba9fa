// Where a reader is: its start (exclusive or inclusive) and the last message it handed on. The
// broker may send messages at or before the start (it restarts a non-durable cursor at an entry,
// and a batch entry holds messages before the one asked for) and, after a reconnection, messages
// handed on already; accept() drops both, so a reader never sees a message twice or one before
// its start. Positions compare by ledger, entry and batch index (the partition is the
// consumer's own and not compared).
//
// Thread safety: not synchronised; the consumer uses it from its strand only.
#pragma once

#include <optional>

#include "common/message_order.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::pulsar {

class ReaderPosition {
 public:
  ReaderPosition(std::optional<MessageId> start, bool inclusive)
      : start_(start), inclusive_(inclusive) {}

  // Whether to hand on the message with `id`; records it as the last one when so.
  bool accept(const MessageId& id);
  // After a seek: everything after `id` (from the first message for earliest(), what is
  // published next for latest()) comes next; with `inclusive`, `id` itself first.
  void seek(const MessageId& id, bool inclusive = false) {
    start_ = id;
    inclusive_ = inclusive;
    last_.reset();
  }
  // The start is the topic's last message (latest(), inclusive), which the broker does not know
  // how to start at: the consumer asks for its id and seeks there before it reads.
  bool startsAtUnknownLast() const {
    return !last_ && inclusive_ && start_ && *start_ == MessageId::latest();
  }

  // Where a new subscription must start: the last message handed on, else the start.
  std::optional<MessageId> resumeFrom() const { return last_ ? last_ : start_; }
  const std::optional<MessageId>& last() const { return last_; }

  // -1, 0, 1 by ledger, entry and batch index.
  static int compare(const MessageId& a, const MessageId& b);
  // The id of `id`'s whole entry (no batch index).
  static MessageId entryOf(const MessageId& id) { return MessageId(id.ledger(), id.entry()); }

 private:
  std::optional<MessageId> start_;
  bool inclusive_;
  std::optional<MessageId> last_;
};

inline int ReaderPosition::compare(const MessageId& a, const MessageId& b) {
  return comparePositions(a, b);
}

inline bool ReaderPosition::accept(const MessageId& id) {
  // From latest(), the broker sends only what was published after the start: all of it comes.
  bool after = last_                                       ? compare(id, *last_) > 0
               : !start_ || *start_ == MessageId::latest() ? true
               : inclusive_                                ? compare(id, *start_) >= 0
               // After an id without a batch index: after its whole entry, as the broker starts
               // the Java client's reader (it steps back into an entry only for a batch index).
               : start_->batchIndex() < 0 ? compare(entryOf(id), *start_) > 0
                                          : compare(id, *start_) > 0;
  if (after) last_ = id;
  return after;
}

}  // namespace reconsume::detail::pulsar
