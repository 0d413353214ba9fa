// A transaction of the pulsar:// backend: its TxnId, the coordinators, what it registered with
// its coordinator, and the operations made in it.
//
// Producers and consumers use it around each transactional send and acknowledgement: begin()
// (refused once the transaction is ending), registerPartition() or registerSubscription() (once
// per topic, or per topic and subscription: TxnRegistrations), then finished() with the
// operation's outcome. commit() and abort() wait for the operations still in flight, as the Java
// client does, then send END_TXN to the transaction's coordinator and report its answer
// (endTxnStatus). When an operation of the transaction failed, commit() aborts instead and
// reports transaction_not_found: what was sent and acknowledged in it is discarded, so nothing
// ends up half done.
//
// Thread safety: every member may be called from any thread; a mutex guards the state, and no
// callback runs under it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/backend.hpp"
#include "pulsar/transaction_coordinators.hpp"
#include "pulsar/txn_registrations.hpp"

namespace reconsume::detail::pulsar {

class PulsarTransaction final : public client::BackendTransaction,
                                public std::enable_shared_from_this<PulsarTransaction> {
 public:
  PulsarTransaction(TxnId id, std::shared_ptr<TransactionCoordinators> coordinators);

  // The transaction behind `transaction` when this backend made it, else null.
  static std::shared_ptr<PulsarTransaction> from(
      const std::shared_ptr<client::BackendTransaction>& transaction);

  const TxnId& id() const override { return id_; }
  void commit(Callback<> done) override;
  void abort(Callback<> done) override;

  // An operation (`what`: "send to <topic>") starts in the transaction: ok, or why it may not
  // (the transaction is ending or over). After ok, call finished() exactly once.
  Status begin(const std::string& what);
  void finished(const Status& status);

  // ADD_PARTITION_TO_TXN of `topic` (a partition or a non-partitioned topic), once.
  void registerPartition(const std::string& topic, std::function<void(const Status&)> done);
  // ADD_SUBSCRIPTION_TO_TXN of (`topic`, `subscription`), once.
  void registerSubscription(const std::string& topic, const std::string& subscription,
                            std::function<void(const Status&)> done);

 private:
  enum class State {
    open,
    ending,     // commit or abort waits for operations in flight, or for END_TXN's answer
    endFailed,  // END_TXN failed in a way that may pass: commit or abort may be asked again
    ended,
  };

  void end(proto::TxnAction action, Callback<> done);
  void sendEnd();
  void register_(TxnRegistrations& table, const std::string& key, std::string what,
                 CoordinatorRequests::Build build, std::function<void(const Status&)> done);
  std::string describe() const { return "transaction " + id_.toString(); }

  const TxnId id_;
  const std::shared_ptr<TransactionCoordinators> coordinators_;

  std::mutex mutex_;
  State state_ = State::open;
  int inFlight_ = 0;
  Status firstFailure_;  // of an operation made in the transaction
  TxnRegistrations partitions_;
  TxnRegistrations subscriptions_;
  proto::TxnAction action_ = proto::COMMIT;  // asked for by commit or abort
  Callback<> endDone_;
};

}  // namespace reconsume::detail::pulsar
