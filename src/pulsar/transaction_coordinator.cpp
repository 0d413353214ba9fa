#include "pulsar/transaction_coordinator.hpp"

#include <boost/asio/post.hpp>

#include "protocol/transaction_commands.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

Status transactionsNotEnabled(const Status& answer) {
  return Status(
      errc::unsupported,
      "the broker does not enable transactions (transactionCoordinatorEnabled): " + answer.message);
}

TransactionCoordinator::TransactionCoordinator(const Strand& strand,
                                               std::shared_ptr<Network> network, std::uint64_t tcId)
    : strand_(strand),
      network_(std::move(network)),
      tcId_(tcId),
      budget_(Backoff(network_->options->backoff)),
      retryTimer_(strand_, network_->clock()),
      deadlineTimer_(strand_, network_->clock()) {}

void TransactionCoordinator::request(std::string what, CoordinatorRequests::Build build,
                                     CoordinatorRequests::Done done) {
  if (state_ == State::closed) return done(Outcome::failed(closed_));
  auto id = requests_.add(std::move(what), std::move(build), std::move(done),
                          now() + network_->operationTimeout());
  armDeadline();
  switch (state_) {
    case State::ready:
      // A connection that refused our credentials is replaced by the pool: look up afresh.
      if (!connection_->usable()) return connect();
      if (requests_.start(id, generation_)) write(id);
      return;
    case State::idle:
      return connect();
    default:
      return;  // goes out once connected
  }
}

void TransactionCoordinator::shutdown(const Status& why) {
  if (state_ == State::closed) return;
  state_ = State::closed;
  closed_ = why;
  connection_.reset();
  retryTimer_.cancel();
  deadlineTimer_.cancel();
  deadlineAt_.reset();
  failAll(why);
}

// ----- connecting -------------------------------------------------------------------------------

void TransactionCoordinator::connect() {
  connection_.reset();
  if (requests_.empty()) {
    state_ = State::idle;  // nobody waits: connect again on the next request
    return;
  }
  state_ = State::connecting;
  auto generation = ++generation_;
  network_->lookup->broker(
      protocol::coordinatorTopic(tcId_), network_->operationTimeout(),
      [self = shared_from_this(), generation](const Status& status, BrokerAddress address) {
        asio::post(self->strand_, [self, generation, status, address = std::move(address)] {
          self->onLookedUp(generation, status, address);
        });
      });
}

void TransactionCoordinator::onLookedUp(std::uint64_t generation, const Status& status,
                                        const BrokerAddress& address) {
  if (state_ != State::connecting || generation != generation_) return;
  if (!status.ok()) return connectFailed(status, std::nullopt);
  auto connection = network_->pool->get(address);
  auto requestId = connection->newRequestId();
  connection->request(requestId, protocol::tcClientConnect(tcId_, requestId),
                      "TC_CLIENT_CONNECT to " + describe() + " at " + address.key(),
                      [self = shared_from_this(), generation, connection](Response response) {
                        asio::post(self->strand_,
                                   [self, generation, connection, response = std::move(response)] {
                                     self->onConnected(generation, connection, response);
                                   });
                      });
}

void TransactionCoordinator::onConnected(std::uint64_t generation,
                                         const std::shared_ptr<Connection>& connection,
                                         const Response& response) {
  if (state_ != State::connecting || generation != generation_) return;
  if (!response.status.ok()) return connectFailed(response.status, serverErrorIn(response.command));
  connection_ = connection;
  state_ = State::ready;
  budget_.succeeded();
  lastFailure_ = {};
  network_->log.debug(describe() + " is connected at " + connection->address().key());
  sendWaiting();
}

void TransactionCoordinator::connectFailed(const Status& status,
                                           std::optional<proto::ServerError> error) {
  if (error == proto::NotAllowedError) {
    state_ = State::idle;
    return failAll(transactionsNotEnabled(status));
  }
  lastFailure_ = status;
  if (!retryableWhileTimeLeft(status)) {
    state_ = State::idle;
    return failAll(Status(status.code, "cannot connect to " + describe() + ": " + status.message));
  }
  reconnectAfterBackoff(status);
}

void TransactionCoordinator::reconnectAfterBackoff(const Status& why) {
  connection_.reset();
  if (requests_.empty()) {
    state_ = State::idle;
    return;
  }
  state_ = State::backingOff;
  auto wait = budget_.next(why, now()).value_or(std::chrono::milliseconds(0));  // unbounded
  network_->log.debug(describe() + " connects again in " + std::to_string(wait.count()) +
                      " ms: " + why.message);
  retryTimer_.expiresAfter(wait);
  retryTimer_.asyncWait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec && self->state_ == State::backingOff) self->connect();
  });
}

// ----- requests ---------------------------------------------------------------------------------

void TransactionCoordinator::sendWaiting() {
  for (auto id : requests_.startWaiting(generation_)) write(id);
}

void TransactionCoordinator::write(std::uint64_t id) {
  const auto* request = requests_.find(id);
  if (request == nullptr || !connection_) return;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(request->deadline - now());
  auto requestId = connection_->newRequestId();
  connection_->request(
      requestId, request->build(requestId), request->what,
      [self = shared_from_this(), id, generation = generation_](Response response) {
        asio::post(self->strand_, [self, id, generation, response = std::move(response)] {
          self->onAnswer(id, generation, std::move(response));
        });
      },
      std::max(left, std::chrono::milliseconds(1)));
}

void TransactionCoordinator::onAnswer(std::uint64_t id, std::uint64_t generation,
                                      Response response) {
  const auto* request = requests_.find(id);
  if (request == nullptr || request->inFlightOn != generation) return;  // timed out meanwhile
  const auto& status = response.status;
  if (status.code == errc::connection_lost) {
    requests_.answerLost(id, status.message);
    return attemptLost(generation, status, false);
  }
  auto error = serverErrorIn(response.command);
  if (error == proto::TransactionCoordinatorNotFound) {
    requests_.notServed(id);
    return attemptLost(generation, status, true);
  }
  if (error == proto::NotAllowedError) return complete(id, transactionsNotEnabled(status));
  if (status.code == errc::timeout) return complete(id, timedOut(*request));
  Outcome outcome;
  outcome.status = status;
  if (auto decoded = protocol::decodeTxnResponse(response.command)) {
    if (status.ok()) outcome.txn = decoded->txn;
    outcome.ended = decoded->ended;
  }
  complete(id, std::move(outcome));
}

void TransactionCoordinator::attemptLost(std::uint64_t generation, const Status& why,
                                         bool notServed) {
  if (state_ != State::ready) return;  // reconnecting already: the request waits for it
  if (generation != generation_) return sendWaiting();  // connected again since it went out
  if (notServed) {
    network_->log.info(describe() + " is not served at " + connection_->address().key() +
                       ": looking it up again (" + why.message + ")");
    return reconnectAfterBackoff(why);
  }
  // The connection reconnects with its own backoff; a lookup may find the coordinator moved.
  network_->log.info(describe() + " lost its connection: connecting again (" + why.message + ")");
  connect();
}

void TransactionCoordinator::complete(std::uint64_t id, Status status) {
  complete(id, Outcome::failed(std::move(status)));
}

void TransactionCoordinator::complete(std::uint64_t id, Outcome outcome) {
  auto request = requests_.take(id);
  if (!request) return;
  armDeadline();
  outcome.lostAnswer = request->lostAnswer;
  request->done(outcome);
}

void TransactionCoordinator::failAll(const Status& why) {
  auto all = requests_.takeAll();
  armDeadline();
  for (auto& request : all) {
    auto outcome = Outcome::failed(Status(why.code, request.what + ": " + why.message));
    outcome.lostAnswer = request.lostAnswer;
    request.done(outcome);
  }
}

// ----- deadlines --------------------------------------------------------------------------------

Status TransactionCoordinator::timedOut(const CoordinatorRequests::Request& request) const {
  std::string text = request.what + " got no answer from " + describe() + " within " +
                     std::to_string(network_->operationTimeout().count()) + " ms";
  if (request.attempts > 1) text += " (" + std::to_string(request.attempts) + " attempts)";
  if (!lastFailure_.ok() && state_ != State::ready) {
    text += "; the coordinator is unreachable: " + lastFailure_.message;
  }
  if (request.lostAnswer) {
    text += "; the outcome is unknown: the answer to an earlier attempt was lost (" +
            *request.lostAnswer + ")";
  }
  return Status(errc::timeout, text);
}

void TransactionCoordinator::armDeadline() {
  auto next = requests_.nextDeadline();
  if (!next) {
    if (deadlineAt_) deadlineTimer_.cancel();
    deadlineAt_.reset();
    return;
  }
  if (deadlineAt_ && *deadlineAt_ <= *next) return;  // fires earlier and re-arms then
  deadlineAt_ = next;
  deadlineTimer_.expiresAt(*next);
  deadlineTimer_.asyncWait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec != asio::error::operation_aborted) self->onDeadline();
  });
}

void TransactionCoordinator::onDeadline() {
  deadlineAt_.reset();
  auto expired = requests_.expire(now());
  std::vector<std::pair<CoordinatorRequests::Done, Outcome>> completions;
  for (auto& request : expired) {
    auto outcome = Outcome::failed(timedOut(request));
    outcome.lostAnswer = request.lostAnswer;
    completions.emplace_back(std::move(request.done), std::move(outcome));
  }
  armDeadline();
  for (auto& [done, outcome] : completions) done(outcome);
}

}  // namespace reconsume::detail::pulsar
