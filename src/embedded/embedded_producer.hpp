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
  // `compression`: the producer's option. The embedded broker stores payloads as they are, but
  // counts a message against `maxMessageSize` as Pulsar does: compressed, with its metadata.
  EmbeddedProducer(std::shared_ptr<Topic> topic, ProducerState state, std::uint64_t id,
                   std::uint64_t maxMessageSize, Compression compression,
                   std::shared_ptr<Coordinator> coordinator);
  ~EmbeddedProducer() override;

  const std::string& topic() const override { return topic_->name(); }
  // The stored message shares the payload and properties it is given: no copy.
  void send(OutgoingData message, BackendCallback<MessageId>&& done) override;
  // Stored at once (the id is final) but dispatched only once the transaction commits.
  void send(OutgoingData message, const std::shared_ptr<client::BackendTransaction>& transaction,
            BackendCallback<MessageId> done) override;
  void close(Callback<> done) override;
  void closeNow() override;

 private:
  Status validate(const OutgoingData& message) const;
  Status closedStatus() const;
  void publish(OutgoingData&& message, const TxnRef* txn, BackendCallback<MessageId>& done);

  const std::shared_ptr<Topic> topic_;
  // Guarded by the topic's mutex (the name is fixed); shared with a deferred close.
  const std::shared_ptr<ProducerState> state_;
  const SharedText name_;  // what each message carries as its producer name
  std::atomic<bool> closed_{false};
  const std::uint64_t id_;
  const std::uint64_t maxMessageSize_;
  const Compression compression_;
  const std::shared_ptr<Coordinator> coordinator_;
};

}  // namespace reconsume::detail::embedded
