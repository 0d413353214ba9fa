// A producer of the embedded broker, attached to one topic or partition. Sends complete inline,
// on the caller's thread, once the message is stored and dispatched.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <memory>

#include "client/backend.hpp"
#include "embedded/closable.hpp"
#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {

class EmbeddedProducer final : public client::BackendProducer, public Closable {
 public:
  EmbeddedProducer(std::shared_ptr<Topic> topic, ProducerState state, std::uint64_t id,
                   std::uint64_t maxMessageSize);
  ~EmbeddedProducer() override;

  const std::string& topic() const override { return topic_->name(); }
  void send(const OutgoingMessage& message, Callback<MessageId> done) override;
  void send(const OutgoingMessage&, const std::shared_ptr<client::BackendTransaction>&,
            Callback<MessageId> done) override {
    done(Status(errc::unsupported, "transactions are not implemented yet on this backend"),
         MessageId());
  }
  void close(Callback<> done) override;
  void closeNow() override;

 private:
  Status validate(const OutgoingMessage& message) const;

  const std::shared_ptr<Topic> topic_;
  // Guarded by the topic's mutex (the name is fixed); shared with a deferred close.
  const std::shared_ptr<ProducerState> state_;
  std::atomic<bool> closed_{false};
  const std::uint64_t id_;
  const std::uint64_t maxMessageSize_;
};

}  // namespace reconsume::detail::embedded
