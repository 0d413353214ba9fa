// The transaction coordinator of one embedded broker (Pulsar's TC, PIP-31): hands out transaction
// ids (coordinator 0, sequence numbers from 0), remembers which topics and subscriptions each open
// transaction touched, ends transactions on them (commit or abort), and aborts a transaction still
// open when its timeout passes on the broker's clock (ManualClock: inside advance).
//
// As in Pulsar, a transaction lives in the broker, not in a client: closing a client ends none.
// Once a transaction ended (committed, aborted, timed out) the coordinator has no open
// transaction by that id: ending it again answers transaction_not_found; ending it while it is
// being ended too (Pulsar's InvalidTxnStatus).
//
// Thread safety: every member may be called from any thread. Lock order: a topic's lock, then
// the coordinator's (join is called under the topic's lock); the coordinator never holds its
// lock while it calls a topic.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.hpp"
#include "common/txn_id.hpp"
#include "embedded/faults.hpp"
#include "reconsume/clock.hpp"

namespace reconsume::detail::embedded {

class Topic;
class Subscription;
class Coordinator;

// A transaction as a topic sees it when a publish or an acknowledgement carries one.
struct TxnRef {
  Coordinator& coordinator;
  const TxnId& id;
};

// Orders transaction ids (for maps keyed by them).
struct TxnIdLess {
  bool operator()(const TxnId& a, const TxnId& b) const {
    return a.mostBits != b.mostBits ? a.mostBits < b.mostBits : a.leastBits < b.leastBits;
  }
};

class Coordinator : public std::enable_shared_from_this<Coordinator> {
 public:
  static constexpr std::uint64_t kId = 0;  // the mostBits of every id it hands out

  Coordinator(std::shared_ptr<Clock> clock, std::shared_ptr<Faults> faults);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Opens a transaction that is aborted when still open at now + timeout (timeout > 0).
  TxnId begin(std::chrono::milliseconds timeout);

  // With `topic`'s lock held: the open transaction `id` takes part in `topic` (it publishes
  // there) or in `subscription` of `topic` (it acknowledges there), so that its end reaches
  // them. transaction_not_found, saying why, when `id` is not open.
  Status join(const TxnId& id, Topic& topic);
  Status join(const TxnId& id, Topic& topic, Subscription& subscription);

  // Ends `id` on every topic and subscription it joined, then answers. commit consults the
  // faults (faults.hpp): a refused commit aborts the transaction, a lost answer is reported as
  // connection_lost whatever the outcome.
  Status commit(const TxnId& id);
  Status abort(const TxnId& id);

  // The broker is going away: no timeout fires any more.
  void shutdown();

 private:
  enum class Outcome : std::uint8_t { committed, aborted, timedOut, refused };
  struct Txn;

  Status end(const TxnId& id, Outcome wanted);
  void onTimeout(const TxnId& id);
  // Why `id` is not open, for error texts; the mutex is held.
  std::string whyNotOpen(const TxnId& id) const;
  void remember(const TxnId& id, Outcome outcome);  // the mutex is held

  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Faults> faults_;

  mutable std::mutex mutex_;
  std::uint64_t nextSequence_ = 0;
  bool shutDown_ = false;
  std::map<std::uint64_t, std::unique_ptr<Txn>> live_;  // open or being ended, by sequence
  std::map<std::uint64_t, Outcome> ended_;              // the most recent ones, for error texts
};

}  // namespace reconsume::detail::embedded
