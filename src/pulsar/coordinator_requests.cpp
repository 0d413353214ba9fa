#include "pulsar/coordinator_requests.hpp"

namespace reconsume::detail::pulsar {

std::uint64_t CoordinatorRequests::add(std::string what, Build build, Done done,
                                       TimePoint deadline) {
  auto id = ++lastId_;
  Request request;
  request.what = std::move(what);
  request.build = std::move(build);
  request.done = std::move(done);
  request.deadline = deadline;
  requests_.emplace(id, std::move(request));
  return id;
}

std::vector<std::uint64_t> CoordinatorRequests::startWaiting(std::uint64_t generation) {
  std::vector<std::uint64_t> started;
  for (auto& [id, request] : requests_) {
    if (request.inFlightOn) continue;
    request.inFlightOn = generation;
    ++request.attempts;
    started.push_back(id);
  }
  return started;
}

bool CoordinatorRequests::start(std::uint64_t id, std::uint64_t generation) {
  auto found = requests_.find(id);
  if (found == requests_.end() || found->second.inFlightOn) return false;
  found->second.inFlightOn = generation;
  ++found->second.attempts;
  return true;
}

void CoordinatorRequests::answerLost(std::uint64_t id, const std::string& why) {
  auto found = requests_.find(id);
  if (found == requests_.end()) return;
  found->second.inFlightOn.reset();
  // The first loss is the one that matters: that attempt may have taken effect.
  if (!found->second.lostAnswer) found->second.lostAnswer = why;
}

void CoordinatorRequests::notServed(std::uint64_t id) {
  auto found = requests_.find(id);
  if (found != requests_.end()) found->second.inFlightOn.reset();
}

const CoordinatorRequests::Request* CoordinatorRequests::find(std::uint64_t id) const {
  auto found = requests_.find(id);
  return found == requests_.end() ? nullptr : &found->second;
}

std::optional<CoordinatorRequests::Request> CoordinatorRequests::take(std::uint64_t id) {
  auto found = requests_.find(id);
  if (found == requests_.end()) return std::nullopt;
  auto request = std::move(found->second);
  requests_.erase(found);
  return request;
}

std::vector<CoordinatorRequests::Request> CoordinatorRequests::expire(TimePoint now) {
  std::vector<Request> expired;
  for (auto it = requests_.begin(); it != requests_.end();) {
    if (it->second.deadline <= now) {
      expired.push_back(std::move(it->second));
      it = requests_.erase(it);
    } else {
      ++it;
    }
  }
  return expired;
}

std::vector<CoordinatorRequests::Request> CoordinatorRequests::takeAll() {
  std::vector<Request> all;
  for (auto& [id, request] : requests_) all.push_back(std::move(request));
  requests_.clear();
  return all;
}

std::optional<CoordinatorRequests::TimePoint> CoordinatorRequests::nextDeadline() const {
  std::optional<TimePoint> next;
  for (const auto& [id, request] : requests_) {
    if (!next || request.deadline < *next) next = request.deadline;
  }
  return next;
}

bool CoordinatorRequests::anyWaiting() const {
  for (const auto& [id, request] : requests_) {
    if (!request.inFlightOn) return true;
  }
  return false;
}

Status endTxnStatus(proto::TxnAction action, const TxnId& txn,
                    const CoordinatorRequests::Outcome& outcome) {
  const auto& status = outcome.status;
  if (outcome.ended == action) return {};
  if (outcome.ended) {
    return Status(errc::transaction_not_found,
                  "transaction " + txn.toString() + " is " +
                      (*outcome.ended == proto::COMMIT ? "committed" : "aborted") +
                      " already, so it cannot be " +
                      (action == proto::COMMIT ? "committed" : "aborted") + " (" + status.message +
                      ")");
  }
  if (status.code != errc::transaction_not_found || !outcome.lostAnswer) return status;
  const std::string lost = "the answer to the first END_TXN(" +
                           std::string(action == proto::COMMIT ? "COMMIT" : "ABORT") +
                           ") was lost (" + *outcome.lostAnswer +
                           "), and the coordinator answered the one sent again with "
                           "TransactionNotFound, which is also what it says once that first "
                           "request ended the transaction";
  if (action == proto::COMMIT) {
    return Status(errc::transaction_not_found,
                  "the outcome of committing transaction " + txn.toString() + " is unknown: " +
                      lost + "; the transaction is either committed or aborted by its timeout (" +
                      status.message + ")");
  }
  return Status(errc::transaction_not_found,
                "transaction " + txn.toString() + " is aborted: " + lost +
                    "; either way it is aborted (" + status.message + ")");
}

std::optional<proto::ServerError> serverErrorIn(const proto::BaseCommand& command) {
  using T = proto::BaseCommand;
  auto of = [](const auto& body) -> std::optional<proto::ServerError> {
    if (body.has_error()) return body.error();
    return std::nullopt;
  };
  switch (command.type()) {
    case T::ERROR:
      return command.error().error();
    case T::TC_CLIENT_CONNECT_RESPONSE:
      return of(command.tcclientconnectresponse());
    case T::NEW_TXN_RESPONSE:
      return of(command.newtxnresponse());
    case T::ADD_PARTITION_TO_TXN_RESPONSE:
      return of(command.addpartitiontotxnresponse());
    case T::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
      return of(command.addsubscriptiontotxnresponse());
    case T::END_TXN_RESPONSE:
      return of(command.endtxnresponse());
    default:
      return std::nullopt;
  }
}

}  // namespace reconsume::detail::pulsar
