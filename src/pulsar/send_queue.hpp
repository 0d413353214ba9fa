// A producer's entries between send() and the broker's receipt, in order: sequence ids (a batch
// of n messages takes n of them; its receipt names the first), the
// bound (maxPendingMessages: beyond it a send waits for room or fails with producer_busy),
// receipts matched to the oldest message, send timeouts, and what to write again after a
// reconnection. Frames are kept as written, so a resend repeats exactly the same bytes.
//
// Memory: the client core admits at most maxPendingMessages (and its byte limits) per producer
// before a message gets here (client/send_limits.hpp), so through the public API the waiting
// list stays empty and the queue holds at most that many frames; the bound here is the backstop
// for a backend producer used directly.
//
// Thread safety: not synchronised; the producer uses it from its strand only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "client/backend.hpp"
#include "common/bytes.hpp"
#include "protocol/outgoing.hpp"
#include "pulsar/batch_container.hpp"

namespace reconsume::detail::pulsar {

class SendQueue {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  struct Pending {
    std::uint64_t sequenceId{0};  // a batch's first
    Bytes frame;                  // shared with the connection while it writes it
    BackendCallback<MessageId> done;
    TimePoint deadline;         // TimePoint::max(): no send timeout
    bool transactional{false};  // a message of a transaction: never written twice (see below)
    bool written{false};        // handed to a connection since it was admitted
  };
  // An entry admitted while the queue was full, not yet given a sequence id.
  struct Waiting {
    OutgoingEntry message;
    BackendCallback<MessageId> done;
    TimePoint deadline;
  };
  // Turns an admitted entry into its frame once it has its (first) sequence id.
  using Encoder = std::function<Bytes(OutgoingEntry&, std::uint64_t sequenceId)>;

  SendQueue(std::size_t maxPending, bool blockIfFull)
      : maxPending_(maxPending), blockIfFull_(blockIfFull) {}

  enum class Admitted { pending, waiting, busy };
  // pending: it has the next sequence id and its frame is back()'s (write it if connected);
  // waiting: the queue is full and the message waits for room; busy: full and not blocking
  // (`done` was not kept).
  Admitted admit(OutgoingEntry message, BackendCallback<MessageId> done, TimePoint deadline,
                 const Encoder& encode);

  // The receipt for `sequenceId`: the oldest pending message when it matches. `outOfOrder` is
  // set when the receipt is for a message after the oldest (the broker lost one: reconnect and
  // resend); a receipt for an older one (a duplicate) returns nothing.
  std::optional<Pending> receipt(std::uint64_t sequenceId, bool& outOfOrder);

  // Moves waiting messages into the pending queue while there is room; returns how many, whose
  // frames are the last ones of pending().
  std::size_t refill(const Encoder& encode);

  // Everything whose deadline passed, oldest first (pending, then waiting).
  std::vector<BackendCallback<MessageId>> expire(TimePoint now);
  // Everything, for a failure that ends them all (closed, topic terminated).
  std::vector<BackendCallback<MessageId>> takeAll();

  // Marks the last `count` pending entries as handed to a connection.
  void markWritten(std::size_t count);
  // The connection broke: takes out the messages of transactions that were written and not
  // confirmed, oldest first. The broker may have stored such a message in its transaction
  // already, and a second copy would commit with it (no deduplication on most brokers), so it
  // is failed instead of written again; its transaction then aborts on commit. Messages outside
  // transactions stay to be written again (at-least-once).
  std::vector<Pending> takeWrittenTransactional();

  std::optional<TimePoint> nextDeadline() const;
  const std::deque<Pending>& pending() const { return pending_; }
  std::size_t waitingCount() const { return waiting_.size(); }
  bool empty() const { return pending_.empty() && waiting_.empty(); }
  std::uint64_t nextSequenceId() const { return nextSequenceId_; }
  void setNextSequenceId(std::uint64_t next) { nextSequenceId_ = next; }

 private:
  std::size_t maxPending_;
  bool blockIfFull_;
  std::uint64_t nextSequenceId_ = 0;
  std::deque<Pending> pending_;
  std::deque<Waiting> waiting_;
};

}  // namespace reconsume::detail::pulsar
