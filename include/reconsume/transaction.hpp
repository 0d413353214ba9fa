// Transaction: Pulsar's transactions (PIP-31), on their own — what reconsumeLater uses when
// ConsumerOptions::transactionalRetry is on, open to applications that move messages themselves.
//
//   auto txn = client.newTransaction();
//   producer.send(result, txn);        // stored, invisible to consumers until the commit
//   consumer.acknowledge(input, txn);  // pending until the commit
//   txn.commit();                      // both take effect together, or neither
//
// Guarantees: messages published with a transaction are delivered to consumers only once it
// commits, and never if it aborts; messages acknowledged with it stay pending (not redelivered,
// not deliverable to anyone else) until it ends — acknowledged for good on commit, available again
// (redelivered) on abort. A transaction still open after its timeout is aborted by the broker's
// coordinator. On a topic with an open transaction, Pulsar holds back later messages until the
// transaction ends (keep transactions short). Both backends behave so; pulsar:// needs a broker
// with transactionCoordinatorEnabled=true.
//
// Thread safety: a Transaction is a cheap handle to shared state; every member may be called from
// several threads. Handlers of async calls run on their associated executor (by default the
// client's I/O executor), never inside the call that started them. commit and abort throw
// would_deadlock on the client's I/O threads; cancelling asyncCommit or asyncAbort has no effect.
// Errors (blocking forms throw Error, async forms pass the error_code):
// - newTransaction: unsupported (no coordinator on the broker), unavailable, timeout, closed,
//   invalid_argument (a timeout that is not positive).
// - commit/abort: transaction_not_found (it ended already: timed out, aborted or committed; after a
//   lost answer the outcome is unknown, and the message says so), transaction_conflict,
//   broker_error (the coordinator refused; the transaction is aborted), connection_lost, timeout.
// - send/acknowledge with a transaction: as without, plus transaction_not_found (it is over),
//   transaction_conflict (the message is acknowledged already, or pending in another transaction),
//   invalid_argument (the transaction belongs to another client).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "reconsume/detail/completion.hpp"

namespace reconsume {

struct TransactionOptions {
  // Aborted by the coordinator if still open after this long (Java's default).
  std::chrono::milliseconds timeout{60'000};
};

namespace detail::client {
class TransactionImpl;
}

class Transaction {
 public:
  Transaction() = default;
  explicit Transaction(std::shared_ptr<detail::client::TransactionImpl> impl);

  // "(coordinator,sequence)", as the Java client prints a TxnID.
  std::string id() const;
  void commit();
  void abort();

  // Handler: void(boost::system::error_code).
  template <typename CompletionToken>
  auto asyncCommit(CompletionToken&& token) {
    return initiate(token, true);
  }
  template <typename CompletionToken>
  auto asyncAbort(CompletionToken&& token) {
    return initiate(token, false);
  }

  boost::asio::any_io_executor executor() const;
  explicit operator bool() const { return impl_ != nullptr; }
  const std::shared_ptr<detail::client::TransactionImpl>& impl() const { return impl_; }

 private:
  using Impl = std::shared_ptr<detail::client::TransactionImpl>;
  using Done = detail::Completion<void(boost::system::error_code)>;
  template <typename CompletionToken>
  auto initiate(CompletionToken& token, bool commit) {
    return boost::asio::async_initiate<CompletionToken, void(boost::system::error_code)>(
        [impl = impl_, commit](auto handler) {
          startEnd(impl, commit, Done(std::move(handler), executorOf(impl)));
        },
        token);
  }
  static boost::asio::any_io_executor executorOf(const Impl& impl);
  static void startEnd(const Impl& impl, bool commit, Done done);

  std::shared_ptr<detail::client::TransactionImpl> impl_;
};

}  // namespace reconsume
