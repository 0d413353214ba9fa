// One transaction coordinator as the client reaches it. Coordinator N is served by the broker that
// owns partition N of the coordinator-assign topic: the client looks that partition up, sends
// TC_CLIENT_CONNECT(N) on the broker's connection, and once the broker answered, writes the
// coordinator's requests on that connection.
//
// Who retries what (as the Java client's TransactionMetaStoreHandler):
//   - Connecting (lookup, TC_CLIENT_CONNECT) is tried again after a backoff (RetryBudget,
//     unbounded) while requests wait; failures that retrying does not fix fail them at once.
//     NotAllowedError means the broker does not enable transactions: errc::unsupported.
//   - A request whose connection is lost before the answer stays pending (CoordinatorRequests)
//     and is written again after reconnecting; so is one answered TransactionCoordinatorNotFound
//     (the coordinator moved or is still loading), after a backoff and a new lookup.
//   - Every request is failed with errc::timeout once the operation timeout has passed since it
//     was made, whatever is going on (on the network clock).
// Other answers, good or bad, go to the request's callback as decodeTxnResponse() gives them.
//
// Thread safety: every member runs on the strand it was given (the owner posts there); callbacks
// run there too, with no lock held.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/steady_clock.hpp"
#include "pulsar/coordinator_requests.hpp"
#include "pulsar/network.hpp"
#include "pulsar/retry_budget.hpp"

namespace reconsume::detail::pulsar {

class TransactionCoordinator : public std::enable_shared_from_this<TransactionCoordinator> {
 public:
  using Outcome = CoordinatorRequests::Outcome;

  TransactionCoordinator(const Strand& strand, std::shared_ptr<Network> network,
                         std::uint64_t tcId);

  std::uint64_t id() const { return tcId_; }
  // `what` names the request in errors; `build` makes the command for each attempt's request id.
  void request(std::string what, CoordinatorRequests::Build build, CoordinatorRequests::Done done);
  // Fails every request with `why`, for good.
  void shutdown(const Status& why);

 private:
  enum class State { idle, connecting, ready, backingOff, closed };

  void connect();
  void onLookedUp(std::uint64_t generation, const Status& status, const BrokerAddress& address);
  void onConnected(std::uint64_t generation, const std::shared_ptr<Connection>& connection,
                   const Response& response);
  void connectFailed(const Status& status, std::optional<proto::ServerError> error);
  void reconnectAfterBackoff(const Status& why);
  void sendWaiting();
  void write(std::uint64_t id);
  void onAnswer(std::uint64_t id, std::uint64_t generation, Response response);
  void attemptLost(std::uint64_t generation, const Status& why, bool notServed);
  void complete(std::uint64_t id, Status status);
  void complete(std::uint64_t id, Outcome outcome);
  void failAll(const Status& why);
  Status timedOut(const CoordinatorRequests::Request& request) const;
  void armDeadline();
  void onDeadline();
  std::string describe() const { return "transaction coordinator " + std::to_string(tcId_); }
  SteadyClock::time_point now() const { return network_->clock()->now(); }

  Strand strand_;
  const std::shared_ptr<Network> network_;
  const std::uint64_t tcId_;

  // Strand state.
  State state_ = State::idle;
  std::uint64_t generation_ = 0;  // one per connecting attempt; answers of older ones are stale
  std::shared_ptr<Connection> connection_;
  CoordinatorRequests requests_;
  RetryBudget budget_;
  Timer retryTimer_;
  Timer deadlineTimer_;
  std::optional<Timer::time_point> deadlineAt_;
  Status lastFailure_;  // why connecting failed last, for the timeouts' text
  Status closed_;
};

// The status of a request to a broker that does not enable transactions.
Status transactionsNotEnabled(const Status& answer);

}  // namespace reconsume::detail::pulsar
