#include "reconsume/transaction.hpp"

#include "api/handle.hpp"
#include "client/transaction_impl.hpp"
#include "common/sync_call.hpp"

namespace reconsume {

using detail::syncCall;
using detail::api::stateOf;

Transaction::Transaction(std::shared_ptr<detail::client::TransactionImpl> impl)
    : impl_(std::move(impl)) {}

std::string Transaction::id() const {
  return stateOf(impl_, "Transaction").backend()->id().toString();
}

void Transaction::commit() {
  auto& impl = stateOf(impl_, "Transaction");
  syncCall<>(impl.client().blocking("Transaction::commit", "asyncCommit"),
             [&](auto done) { impl.commit(done); });
}

void Transaction::abort() {
  auto& impl = stateOf(impl_, "Transaction");
  syncCall<>(impl.client().blocking("Transaction::abort", "asyncAbort"),
             [&](auto done) { impl.abort(done); });
}

boost::asio::any_io_executor Transaction::executor() const {
  return executorOf(impl_);
}

boost::asio::any_io_executor Transaction::executorOf(const Impl& impl) {
  return stateOf(impl, "Transaction").client().executor();
}

void Transaction::startEnd(const Impl& impl, bool commit, Done done) {
  auto client = impl->client().shared_from_this();
  auto finish = [completion = std::move(done), client, commit,
                 id = impl->backend()->id()](const detail::Status& status) {
    if (!status.ok()) {
      const char* operation = commit ? "asyncCommit" : "asyncAbort";
      client->failureLog().warn(
          operation, status.code, {},
          std::string(operation) + " " + id.toString() + ": " + status.message);
    }
    completion.complete(detail::api::toErrorCode(status));
  };
  if (commit) return impl->commit(finish);
  impl->abort(finish);
}

}  // namespace reconsume
