// The state behind a Transaction: the backend's transaction and the client it belongs to (for the
// executor handlers complete on, and to reject use with another client's producers).
//
// Thread safety: immutable after creation; the backend transaction is thread-safe.
#pragma once

#include <memory>

#include "client/backend.hpp"
#include "client/client_impl.hpp"

namespace reconsume::detail::client {

// Commits `transaction`. When the commit's answer is lost (connection_lost), the commit is sent
// again; if the coordinator then no longer knows the transaction, the outcome is unknown
// (committed, or aborted by its timeout) and `done` gets transaction_not_found saying so
// (SPEC.md section 1).
void commitTransaction(const std::shared_ptr<BackendTransaction>& transaction, Callback<> done);

class TransactionImpl {
 public:
  // A new transaction on `client`'s backend, aborted by the coordinator if still open after
  // `timeout`.
  static void begin(const std::shared_ptr<ClientImpl>& client, std::chrono::milliseconds timeout,
                    Callback<std::shared_ptr<TransactionImpl>> done);

  TransactionImpl(std::shared_ptr<ClientImpl> client, std::shared_ptr<BackendTransaction> backend)
      : client_(std::move(client)), backend_(std::move(backend)) {}

  const std::shared_ptr<BackendTransaction>& backend() const { return backend_; }
  ClientImpl& client() const { return *client_; }
  // invalid_argument naming the transaction when it belongs to another client than `client`.
  Status usableWith(const ClientImpl& client) const;
  void commit(Callback<> done) { commitTransaction(backend_, std::move(done)); }
  void abort(Callback<> done) { backend_->abort(std::move(done)); }

 private:
  std::shared_ptr<ClientImpl> client_;
  std::shared_ptr<BackendTransaction> backend_;
};

}  // namespace reconsume::detail::client
