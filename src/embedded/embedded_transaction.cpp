#include "embedded/embedded_transaction.hpp"

#include <utility>

namespace reconsume::detail::embedded {

EmbeddedTransaction::EmbeddedTransaction(std::shared_ptr<Coordinator> coordinator, TxnId id,
                                         std::shared_ptr<OpenHandles<Closable>> client,
                                         std::string brokerName)
    : coordinator_(std::move(coordinator)),
      id_(id),
      client_(std::move(client)),
      brokerName_(std::move(brokerName)) {}

void EmbeddedTransaction::commit(Callback<> done) {
  if (client_->closed()) {
    return done(Status(errc::closed, "cannot commit transaction " + id_.toString() +
                                         ": the client of " + brokerName_ +
                                         " that opened it is closed"));
  }
  done(coordinator_->commit(id_));
}

void EmbeddedTransaction::abort(Callback<> done) {
  if (client_->closed()) {
    return done(Status(errc::closed, "cannot abort transaction " + id_.toString() +
                                         ": the client of " + brokerName_ +
                                         " that opened it is closed"));
  }
  done(coordinator_->abort(id_));
}

const EmbeddedTransaction* EmbeddedTransaction::resolve(
    const std::shared_ptr<client::BackendTransaction>& transaction, const Coordinator& coordinator,
    const std::function<std::string()>& asked, Status& status) {
  const auto* embedded = dynamic_cast<const EmbeddedTransaction*>(transaction.get());
  if (embedded == nullptr) {
    auto why = transaction ? " in transaction " + transaction->id().toString() +
                                 ": it is not a transaction of an embedded broker"
                           : std::string(": the transaction is null");
    status = Status(errc::invalid_argument, "cannot " + asked() + why);
    return nullptr;
  }
  if (embedded->coordinator_.get() != &coordinator) {
    status = Status(errc::invalid_argument, "cannot " + asked() + " in transaction " +
                                                embedded->id_.toString() + ": it belongs to " +
                                                embedded->brokerName_ + ", another broker");
    return nullptr;
  }
  return embedded;
}

}  // namespace reconsume::detail::embedded
