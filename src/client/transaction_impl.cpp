#include "client/transaction_impl.hpp"

namespace reconsume::detail::client {

void TransactionImpl::begin(const std::shared_ptr<ClientImpl>& client,
                            std::chrono::milliseconds timeout,
                            Callback<std::shared_ptr<TransactionImpl>> done) {
  if (timeout.count() <= 0) {
    return done(
        Status(errc::invalid_argument, "the transaction timeout " +
                                           std::to_string(timeout.count()) + " ms is not positive"),
        nullptr);
  }
  client->backend().newTransaction(
      timeout, [client, done = std::move(done)](const Status& status,
                                                std::shared_ptr<BackendTransaction> backend) {
        if (!status.ok()) return done(status, nullptr);
        done({}, std::make_shared<TransactionImpl>(client, std::move(backend)));
      });
}

void commitTransaction(const std::shared_ptr<BackendTransaction>& transaction, Callback<> done) {
  transaction->commit([transaction, done = std::move(done)](const Status& status) {
    if (status.code != errc::connection_lost) return done(status);
    transaction->commit([transaction, lost = status, done](const Status& again) {
      if (again.code != errc::transaction_not_found) return done(again);
      done(Status(errc::transaction_not_found,
                  "the outcome of committing transaction " + transaction->id().toString() +
                      " is unknown: the answer to the commit was lost (" + lost.message +
                      ") and the coordinator no longer knows the transaction, so it is either "
                      "committed or aborted by its timeout (" +
                      again.message + ")"));
    });
  });
}

Status TransactionImpl::usableWith(const ClientImpl& client) const {
  if (&client == client_.get()) return {};
  return Status(errc::invalid_argument, "transaction " + backend_->id().toString() +
                                            " belongs to the client of " + client_->url().text +
                                            ", not to the client of " + client.url().text);
}

}  // namespace reconsume::detail::client
