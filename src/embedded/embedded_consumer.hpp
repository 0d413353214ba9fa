// A consumer of the embedded broker on one subscription of one topic or partition. Every call
// completes inline, on the caller's thread; messages reach the sink on the thread whose call
// made them deliverable (a send, flow, acknowledgement, redelivery, or the clock's timer thread
// for delayed messages).
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <memory>

#include "client/backend.hpp"
#include "embedded/closable.hpp"
#include "embedded/coordinator.hpp"
#include "embedded/faults.hpp"
#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {

class EmbeddedConsumer final : public client::BackendConsumer, public Closable {
 public:
  EmbeddedConsumer(std::shared_ptr<Topic> topic, std::shared_ptr<Subscription> subscription,
                   std::uint64_t id, std::shared_ptr<Coordinator> coordinator,
                   std::shared_ptr<Faults> faults);
  ~EmbeddedConsumer() override;

  const std::string& topic() const override { return topic_->name(); }
  void flow(std::uint32_t permits) override;
  void acknowledge(const MessageData& message, BackendCallback<> done) override;
  // Held (delivered to nobody, still in the backlog) until the transaction ends.
  void acknowledge(const MessageData& message,
                   const std::shared_ptr<client::BackendTransaction>& transaction,
                   BackendCallback<> done) override;
  void redeliver(const std::vector<MessageId>& ids) override;
  void redeliverAll() override;
  void seek(const MessageId& id, Callback<> done) override;
  void lastMessageId(Callback<MessageId> done) override;
  void close(Callback<> done) override;
  void closeNow() override;

 private:
  Status closedStatus() const;
  // The answer to a processed acknowledgement, unless a test asked to lose it (faults.hpp).
  Status answer(Status status, const MessageId& id, const TxnId* txn) const;

  const std::shared_ptr<Topic> topic_;
  const std::shared_ptr<Subscription> subscription_;
  const std::uint64_t id_;
  const std::shared_ptr<Coordinator> coordinator_;
  const std::shared_ptr<Faults> faults_;
  std::atomic<bool> closed_{false};
};

}  // namespace reconsume::detail::embedded
