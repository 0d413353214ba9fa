// The requests waiting for one transaction coordinator's answer, by an id of their own that
// outlives attempts. As the Java client's TransactionMetaStoreHandler does, a request stays
// pending when its attempt comes to nothing — the coordinator's connection broke before the
// answer, or the coordinator was not served there (TransactionCoordinatorNotFound) — and is
// written again (the same command, a new request id) once the coordinator is connected again,
// until its deadline (the operation timeout). Each request leaves the table exactly once (take,
// expire, takeAll), so its callback runs exactly once.
//
// The table remembers when an attempt's answer was lost (written, then the connection broke):
// a repeated END_TXN may then find its work done already, and endTxnStatus() says so.
//
// Sans-I/O: the caller passes the time and the connection generation; nothing here waits.
// Thread safety: not synchronised; its coordinator uses it from its strand only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "PulsarApi.pb.h"
#include "common/status.hpp"
#include "common/txn_id.hpp"

namespace reconsume::detail::pulsar {

class CoordinatorRequests {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  // The command of one attempt, carrying `requestId`.
  using Build = std::function<proto::BaseCommand(std::uint64_t requestId)>;

  struct Outcome {
    Status status;             // the coordinator's answer (decodeTxnResponse), or why there is none
    std::optional<TxnId> txn;  // the transaction NEW_TXN opened
    // Set when an earlier attempt was written and its answer lost: why.
    std::optional<std::string> lostAnswer;
    // END_TXN refused because the transaction has ended already: how (TxnResponse::ended).
    std::optional<proto::TxnAction> ended;

    static Outcome failed(Status status) {
      Outcome outcome;
      outcome.status = std::move(status);
      return outcome;
    }
  };
  using Done = std::function<void(const Outcome&)>;

  struct Request {
    std::string what;  // "END_TXN(COMMIT) for transaction (0,7)"
    Build build;
    Done done;
    TimePoint deadline;
    std::optional<std::uint64_t> inFlightOn;  // the generation the attempt in flight went out on
    std::optional<std::string> lostAnswer;
    int attempts = 0;
  };

  std::uint64_t add(std::string what, Build build, Done done, TimePoint deadline);

  // The requests not in flight, oldest first: each is now in flight on `generation`.
  std::vector<std::uint64_t> startWaiting(std::uint64_t generation);
  // Request `id` goes out (alone) on `generation`; false when it is not waiting here.
  bool start(std::uint64_t id, std::uint64_t generation);

  // The attempt in flight was written and its session ended before the answer (`why`): it waits
  // to go out again, and its outcome will say that an answer was lost.
  void answerLost(std::uint64_t id, const std::string& why);
  // The attempt had no effect (the coordinator is not served where it went): it waits to go out
  // again.
  void notServed(std::uint64_t id);

  const Request* find(std::uint64_t id) const;
  std::optional<Request> take(std::uint64_t id);
  // Every request whose deadline is at or before `now`.
  std::vector<Request> expire(TimePoint now);
  std::vector<Request> takeAll();

  std::optional<TimePoint> nextDeadline() const;
  bool anyWaiting() const;
  bool empty() const { return requests_.empty(); }
  std::size_t size() const { return requests_.size(); }

 private:
  std::uint64_t lastId_ = 0;
  std::map<std::uint64_t, Request> requests_;  // by id: oldest first
};

// What END_TXN's outcome means for the caller of commit or abort. A repeated END_TXN whose
// first answer was lost and that the coordinator answers with TransactionNotFound: the first one
// may have ended the transaction (a coordinator forgets a transaction once it ended it), so
// after a COMMIT the outcome is unknown — committed, or aborted by the timeout — and after an
// ABORT the transaction is aborted either way. Both stay transaction_not_found, with a text that
// says which. A refusal that says the transaction has ended already (Outcome::ended) is success
// when it ended as asked (an earlier END_TXN, whose answer was lost, did it) and
// transaction_not_found saying how it ended otherwise. Everything else passes through.
Status endTxnStatus(proto::TxnAction action, const TxnId& txn,
                    const CoordinatorRequests::Outcome& outcome);

// The error value a broker's answer carries (ERROR or the error field of a transaction
// response), if any: a few of them call for their own handling (NotAllowedError,
// TransactionCoordinatorNotFound).
std::optional<proto::ServerError> serverErrorIn(const proto::BaseCommand& command);

}  // namespace reconsume::detail::pulsar
