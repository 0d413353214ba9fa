#include "pulsar/pulsar_transaction.hpp"

#include "protocol/transaction_commands.hpp"

namespace reconsume::detail::pulsar {

namespace {

const char* actionName(proto::TxnAction action) {
  return action == proto::COMMIT ? "COMMIT" : "ABORT";
}

}  // namespace

PulsarTransaction::PulsarTransaction(TxnId id,
                                     std::shared_ptr<TransactionCoordinators> coordinators)
    : id_(id), coordinators_(std::move(coordinators)) {}

std::shared_ptr<PulsarTransaction> PulsarTransaction::from(
    const std::shared_ptr<client::BackendTransaction>& transaction) {
  return std::dynamic_pointer_cast<PulsarTransaction>(transaction);
}

// ----- operations in the transaction ------------------------------------------------------------

Status PulsarTransaction::begin(const std::string& what) {
  std::lock_guard lock(mutex_);
  if (state_ != State::open) {
    return Status(errc::transaction_not_found,
                  what + ": " + describe() +
                      (state_ == State::ended ? " has ended" : " is being committed or aborted"));
  }
  ++inFlight_;
  return {};
}

void PulsarTransaction::finished(const Status& status) {
  bool sendNow = false;
  {
    std::lock_guard lock(mutex_);
    --inFlight_;
    if (!status.ok() && firstFailure_.ok()) firstFailure_ = status;
    sendNow = state_ == State::ending && inFlight_ == 0 && endDone_ != nullptr;
  }
  if (sendNow) sendEnd();
}

void PulsarTransaction::registerPartition(const std::string& topic,
                                          std::function<void(const Status&)> done) {
  register_(
      partitions_, topic, "ADD_PARTITION_TO_TXN " + topic + " for " + describe(),
      [id = id_, topic](std::uint64_t requestId) {
        return protocol::addPartitionToTxn(id, requestId, std::span<const std::string>(&topic, 1));
      },
      std::move(done));
}

void PulsarTransaction::registerSubscription(const std::string& topic,
                                             const std::string& subscription,
                                             std::function<void(const Status&)> done) {
  protocol::TxnSubscription entry{topic, subscription};
  register_(
      subscriptions_, topic + '\n' + subscription,
      "ADD_SUBSCRIPTION_TO_TXN " + topic + " (subscription '" + subscription + "') for " +
          describe(),
      [id = id_, entry](std::uint64_t requestId) {
        return protocol::addSubscriptionToTxn(
            id, requestId, std::span<const protocol::TxnSubscription>(&entry, 1));
      },
      std::move(done));
}

void PulsarTransaction::register_(TxnRegistrations& table, const std::string& key, std::string what,
                                  CoordinatorRequests::Build build,
                                  std::function<void(const Status&)> done) {
  TxnRegistrations::Begin begun;
  {
    std::lock_guard lock(mutex_);
    begun = table.begin(key, done);
  }
  if (begun == TxnRegistrations::Begin::registered) return done({});
  if (begun == TxnRegistrations::Begin::wait) return;
  coordinators_->request(
      protocol::coordinatorForTxn(id_), std::move(what), std::move(build),
      [self = shared_from_this(), &table, key](const CoordinatorRequests::Outcome& outcome) {
        std::vector<TxnRegistrations::Waiter> waiters;
        {
          std::lock_guard lock(self->mutex_);
          waiters = table.finish(key, outcome.status);
        }
        // In the order they came, and those that come meanwhile after them (txn_registrations.hpp).
        while (!waiters.empty()) {
          for (auto& waiter : waiters) waiter(outcome.status);
          if (!outcome.status.ok()) return;
          std::lock_guard lock(self->mutex_);
          waiters = table.answered(key);
        }
      });
}

// ----- ending -----------------------------------------------------------------------------------

void PulsarTransaction::commit(Callback<> done) {
  end(proto::COMMIT, std::move(done));
}

void PulsarTransaction::abort(Callback<> done) {
  end(proto::ABORT, std::move(done));
}

void PulsarTransaction::end(proto::TxnAction action, Callback<> done) {
  {
    std::unique_lock lock(mutex_);
    if (state_ == State::ending || state_ == State::ended) {
      // Read under the lock: END_TXN's answer may change it as soon as the lock is let go.
      const char* why = state_ == State::ended ? "has ended" : "is being ended already";
      lock.unlock();
      return done(Status(errc::transaction_not_found,
                         std::string(actionName(action)) + " of " + describe() + ": it " + why));
    }
    state_ = State::ending;
    action_ = action;
    endDone_ = std::move(done);
    if (inFlight_ > 0) return;  // the last operation to finish sends END_TXN
  }
  sendEnd();
}

void PulsarTransaction::sendEnd() {
  proto::TxnAction asked;
  Status failure;
  {
    std::lock_guard lock(mutex_);
    asked = action_;
    failure = firstFailure_;
  }
  // An operation failed: committing would keep half of the work, so the transaction is aborted.
  const auto action = failure.ok() ? asked : proto::ABORT;
  const std::string what = std::string("END_TXN(") + actionName(action) + ") for " + describe();
  coordinators_->request(
      protocol::coordinatorForTxn(id_), what,
      [id = id_, action](std::uint64_t requestId) {
        return protocol::endTxn(id, requestId, action);
      },
      [self = shared_from_this(), asked, action,
       failure](const CoordinatorRequests::Outcome& outcome) {
        Status status = endTxnStatus(action, self->id_, outcome);
        if (action != asked) {
          status = Status(errc::transaction_not_found,
                          self->describe() +
                              " was aborted instead of committed, because an "
                              "operation in it failed (" +
                              failure.message + ")" +
                              (status.ok() ? "" : "; the abort: " + status.message));
        }
        Callback<> done;
        {
          std::lock_guard lock(self->mutex_);
          bool endedForGood = status.ok() || !isRetryable(status.code);
          self->state_ = endedForGood ? State::ended : State::endFailed;
          done = std::exchange(self->endDone_, nullptr);
        }
        if (done) done(status);
      });
}

}  // namespace reconsume::detail::pulsar
