#include "pulsar/transaction_coordinators.hpp"

#include <boost/asio/post.hpp>

#include "protocol/transaction_commands.hpp"
#include "pulsar/partitions_query.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;
using Outcome = CoordinatorRequests::Outcome;

TransactionCoordinators::TransactionCoordinators(std::shared_ptr<Network> network)
    : network_(std::move(network)), strand_(asio::make_strand(network_->executor)) {}

void TransactionCoordinators::newTransaction(std::chrono::milliseconds ttl, Callback<TxnId> done) {
  asio::post(strand_, [self = shared_from_this(), ttl, done = std::move(done)]() mutable {
    self->whenStarted([self, ttl, done = std::move(done)](const Status& status) {
      if (!status.ok()) return done(status, TxnId{});
      auto tcId = roundRobin(self->newTxnCount_++, self->coordinators_.size());
      self->coordinators_[tcId]->request(
          "NEW_TXN to transaction coordinator " + std::to_string(tcId),
          [tcId, ttl](std::uint64_t requestId) { return protocol::newTxn(tcId, requestId, ttl); },
          [done](const CoordinatorRequests::Outcome& outcome) {
            if (!outcome.status.ok()) return done(outcome.status, TxnId{});
            done({}, outcome.txn.value_or(TxnId{}));
          });
    });
  });
}

void TransactionCoordinators::request(std::uint64_t tcId, std::string what,
                                      CoordinatorRequests::Build build,
                                      CoordinatorRequests::Done done) {
  asio::post(strand_, [self = shared_from_this(), tcId, what = std::move(what),
                       build = std::move(build), done = std::move(done)]() mutable {
    self->whenStarted([self, tcId, what = std::move(what), build = std::move(build),
                       done = std::move(done)](const Status& status) mutable {
      if (!status.ok())
        return done(Outcome::failed(Status(status.code, what + ": " + status.message)));
      if (tcId >= self->coordinators_.size()) {
        return done(Outcome::failed(
            Status(errc::protocol_error,
                   what + ": the broker has " + std::to_string(self->coordinators_.size()) +
                       " transaction coordinators, and none numbered " + std::to_string(tcId))));
      }
      self->coordinators_[tcId]->request(std::move(what), std::move(build), std::move(done));
    });
  });
}

void TransactionCoordinators::shutdown(const Status& why) {
  asio::post(strand_, [self = shared_from_this(), why] {
    if (self->state_ == State::closed) return;
    self->state_ = State::closed;
    self->closed_ = why;
    for (auto& coordinator : self->coordinators_) coordinator->shutdown(why);
    for (auto& then : std::exchange(self->waiting_, {})) then(why);
  });
}

// ----- starting ---------------------------------------------------------------------------------

void TransactionCoordinators::whenStarted(Then then) {
  switch (state_) {
    case State::started:
      return then({});
    case State::closed:
      return then(closed_);
    case State::starting:
      waiting_.push_back(std::move(then));
      return;
    case State::unknown:
      break;
  }
  state_ = State::starting;
  waiting_.push_back(std::move(then));
  // Retried within the operation timeout like any partition count (a broker restarting).
  queryPartitions(
      network_, std::string(protocol::kCoordinatorAssignTopic), MetadataCreation::allowed,
      [self = shared_from_this()](const Status& status, int count) {
        asio::post(self->strand_, [self, status, count] { self->onPartitions(status, count); });
      });
}

void TransactionCoordinators::onPartitions(const Status& status, int count) {
  if (state_ != State::starting) return;  // shut down meanwhile
  Status outcome;
  if (!status.ok()) {
    // Without the system namespace (a broker that never enabled transactions) the topic is not
    // found at all.
    outcome = status.code == errc::not_found
                  ? transactionsNotEnabled(status)
                  : Status(status.code, "cannot find the transaction coordinators (" +
                                            std::string(protocol::kCoordinatorAssignTopic) +
                                            "): " + status.message);
  } else if (count <= 0) {
    outcome = transactionsNotEnabled(
        Status(errc::unsupported, std::string(protocol::kCoordinatorAssignTopic) +
                                      " has no partitions, so there is no coordinator"));
  }
  if (outcome.ok()) {
    for (int tcId = 0; tcId < count; ++tcId) {
      coordinators_.push_back(std::make_shared<TransactionCoordinator>(
          strand_, network_, static_cast<std::uint64_t>(tcId)));
    }
    state_ = State::started;
    network_->log.debug("the broker has " + std::to_string(count) + " transaction coordinators");
  } else {
    state_ = State::unknown;  // the next transaction asks again (the broker may change)
  }
  for (auto& then : std::exchange(waiting_, {})) then(outcome);
}

}  // namespace reconsume::detail::pulsar
