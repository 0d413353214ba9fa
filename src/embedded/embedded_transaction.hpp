// A transaction of the embedded broker as a client holds it: its id at the broker's coordinator
// and the client that opened it. Its state lives in the coordinator; closing the client ends
// nothing (the coordinator aborts it at its timeout, as in Pulsar), but this handle can no longer
// ask for anything then (errc::closed). commit and abort complete inline, after every topic and
// subscription the transaction touched has seen its end.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "client/backend.hpp"
#include "common/open_handles.hpp"
#include "embedded/closable.hpp"
#include "embedded/coordinator.hpp"

namespace reconsume::detail::embedded {

class EmbeddedTransaction final : public client::BackendTransaction {
 public:
  // `client`: the handles of the backend that opened it (closed with it); `brokerName` for
  // error texts.
  EmbeddedTransaction(std::shared_ptr<Coordinator> coordinator, TxnId id,
                      std::shared_ptr<OpenHandles<Closable>> client, std::string brokerName);

  const TxnId& id() const override { return id_; }
  void commit(Callback<> done) override;
  void abort(Callback<> done) override;

  // The embedded transaction behind `transaction` when it is one of `coordinator`'s; otherwise
  // null and an invalid_argument Status that says so, naming what was asked (`asked()`, called
  // only then).
  static const EmbeddedTransaction* resolve(
      const std::shared_ptr<client::BackendTransaction>& transaction,
      const Coordinator& coordinator, const std::function<std::string()>& asked, Status& status);

  TxnRef ref() const { return TxnRef{*coordinator_, id_}; }

 private:
  const std::shared_ptr<Coordinator> coordinator_;
  const TxnId id_;
  const std::shared_ptr<OpenHandles<Closable>> client_;
  const std::string brokerName_;
};

}  // namespace reconsume::detail::embedded
