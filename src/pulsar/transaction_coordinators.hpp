// The transaction coordinators of one pulsar:// backend, started on the first transaction: the
// number of partitions of the coordinator-assign topic says how many there are (none: the broker
// does not enable transactions, errc::unsupported), and each is connected on its first request
// (TransactionCoordinator). NEW_TXN goes to them in turn; every later request of a transaction
// goes to the coordinator that opened it (protocol::coordinatorForTxn). Shut down with the
// backend.
//
// Thread safety: every member may be called from any thread; the state lives on a strand, and
// callbacks run there with no lock held.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/callback.hpp"
#include "pulsar/transaction_coordinator.hpp"

namespace reconsume::detail::pulsar {

class TransactionCoordinators : public std::enable_shared_from_this<TransactionCoordinators> {
 public:
  explicit TransactionCoordinators(std::shared_ptr<Network> network);

  // Opens a transaction (NEW_TXN) that its coordinator aborts if still open after `ttl`.
  void newTransaction(std::chrono::milliseconds ttl, Callback<TxnId> done);
  // A request to coordinator `tcId`, sent again as TransactionCoordinator says.
  void request(std::uint64_t tcId, std::string what, CoordinatorRequests::Build build,
               CoordinatorRequests::Done done);
  // Fails everything in flight and every later request with `why`.
  void shutdown(const Status& why);

  // The coordinator NEW_TXN number `count` (from 0) goes to, of `coordinators` (> 0): in turn.
  static std::uint64_t roundRobin(std::uint64_t count, std::size_t coordinators) {
    return count % coordinators;
  }

 private:
  enum class State { unknown, starting, started, closed };
  using Then = std::function<void(const Status&)>;

  void whenStarted(Then then);
  void onPartitions(const Status& status, int count);

  const std::shared_ptr<Network> network_;
  Strand strand_;

  // Strand state.
  State state_ = State::unknown;
  Status closed_;
  std::vector<Then> waiting_;  // for the coordinators' count
  std::vector<std::shared_ptr<TransactionCoordinator>> coordinators_;
  std::uint64_t newTxnCount_ = 0;
};

}  // namespace reconsume::detail::pulsar
