// reconsumeLater and deadLetter in the default, at-least-once mode: the new message is published
// and, once the broker confirmed it, the original is acknowledged. A failed publish gives the
// original back (negative acknowledgement); an acknowledgement that fails after the copy is stored
// is reported as acknowledgement_unconfirmed (SPEC.md section 1).
#include "retry/reconsumer.hpp"

namespace reconsume::detail::retry {

namespace {

// One move, shared by the callbacks of its steps: each captures one pointer, where copies of the
// message, the caller's callback and the target's name in every step cost an allocation each on
// the hot path of a failing consumer.
struct AtLeastOnceMove {
  std::shared_ptr<client::ConsumerImpl> consumer;
  Message message;
  OutgoingData outgoing;  // moved on to the producer
  std::shared_ptr<LazyProducer> producer;
  Callback<> done;

  // Not acknowledged: the original comes back after the negative-ack delay.
  void publishFailed(const Status& status) const {
    consumer->negativeAcknowledge(message);
    done(Status(status.code, "publishing message " + message.id().toString() + " to " +
                                 producer->topic() + " failed: " + status.message));
  }
};

}  // namespace

void Reconsumer::moveAtLeastOnce(const Message& message, OutgoingData outgoing,
                                 std::shared_ptr<LazyProducer> producer, Callback<> done) {
  auto move = std::make_shared<AtLeastOnceMove>(AtLeastOnceMove{
      consumer_, message, std::move(outgoing), std::move(producer), std::move(done)});
  move->producer->get([move](const Status& status, std::shared_ptr<client::ProducerImpl> producer) {
    if (!status.ok()) return move->publishFailed(status);
    // get() calls this once: the copy's payload moves on to the producer.
    producer->send(std::move(move->outgoing), [move](const Status& sent, const MessageId& id) {
      if (!sent.ok()) return move->publishFailed(sent);
      move->consumer->acknowledge(
          move->message,
          [move, id](const Status& acked) {
            if (acked.ok() || acked.code == errc::closed) return move->done(acked);
            // The copy is stored: calling again would start a second chain (SPEC.md section 1).
            move->done(Status(errc::acknowledgement_unconfirmed,
                              "message " + move->message.id().toString() + " is stored in " +
                                  move->producer->topic() + " as " + id.toString() +
                                  ", but its acknowledgement was not confirmed: " + acked.message));
          },
          client::ConsumerImpl::AckDispatch::confirmed);
    });
  });
}

}  // namespace reconsume::detail::retry
