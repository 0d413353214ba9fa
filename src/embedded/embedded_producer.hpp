// A producer of the embedded broker, attached to one topic or partition. Sends complete inline,
// on the caller's thread, once the message is stored and dispatched.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <memory>

#include "client/backend.hpp"
#include "embedded/closable.hpp"
#include "embedded/coordinator.hpp"
#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {

class EmbeddedProducer final : public client::BackendProducer, public Closable {
 public:
  EmbeddedProducer(std::shared_ptr<Topic> topic, ProducerState state, std::uint64_t id,
                   std::uint64_t maxMessageSize, std::shared_ptr<Coordinator> coordinator);
  ~EmbeddedProducer() override;

  const std::string& topic() const override { return topic_->name(); }
  void send(const OutgoingMessage& message, Callback<MessageId> done) override;
  // Takes the payload, properties and keys instead of copying them.
  void send(OutgoingMessage&& message, Callback<MessageId> done) override;
  // Stored at once (the id is final) but dispatched only once the transaction commits.
  void send(const OutgoingMessage& message,
            const std::shared_ptr<client::BackendTransaction>& transaction,
            Callback<MessageId> done) override;
  void close(Callback<> done) override;
  void closeNow() override;

 private:
  Status validate(const OutgoingMessage& message) const;
  Status closedStatus() const;
  // `Message` is const OutgoingMessage& (copied from) or OutgoingMessage&& (moved from).
  template <typename Message>
  void publish(Message&& message, const TxnRef* txn, Callback<MessageId>& done);

  const std::shared_ptr<Topic> topic_;
  // Guarded by the topic's mutex (the name is fixed); shared with a deferred close.
  const std::shared_ptr<ProducerState> state_;
  std::atomic<bool> closed_{false};
  const std::uint64_t id_;
  const std::uint64_t maxMessageSize_;
  const std::shared_ptr<Coordinator> coordinator_;
};

}  // namespace reconsume::detail::embedded
