// reconsumeLater and deadLetter in the default, at-least-once mode: the new message is published
// and, once the broker confirmed it, the original is acknowledged. A failed publish gives the
// original back (negative acknowledgement); an acknowledgement that fails after the copy is stored
// is reported as acknowledgement_unconfirmed (SPEC.md section 1).
#include "common/shared_reading.hpp"
#include "reconsume/detail/recycled_blocks.hpp"
#include "retry/reconsumer.hpp"

namespace reconsume::detail::retry {

namespace {

// One move, shared by the callbacks of its steps: each captures one pointer, where copies of the
// message, the caller's callback and the target's name in every step cost an allocation each on
// the hot path of a failing consumer.
struct AtLeastOnceMove : std::enable_shared_from_this<AtLeastOnceMove> {
  // Not the new message: it goes to the producer at once (or waits in start()'s callback until
  // the first move's producer exists). What the I/O thread frees with this object is what it
  // reads from it, cache lines the caller's thread wrote.
  //
  // One reference keeps the consumer, the producer and the metrics alive: the Reconsumer owns
  // them. A reference counted up on the caller's thread and down on the I/O thread moves its
  // count's cache line between the two cores twice per move (docs/PERFORMANCE.md, the tenth
  // round); one instead of three.
  std::shared_ptr<const Reconsumer> owner;
  client::ConsumerImpl* consumer = nullptr;
  Message message;
  LazyProducer* producer = nullptr;
  Route route;
  MoveMetrics* metrics = nullptr;
  std::chrono::steady_clock::time_point started;
  Callback<> done;

  void start(OutgoingData outgoing) {
    // After the first move the producer exists: sent at once, without a callback to get it.
    if (auto* ready = producer->created()) return send(*ready, std::move(outgoing));
    producer->get([self = shared_from_this(), outgoing = std::move(outgoing)](
                      const Status& status, std::shared_ptr<client::ProducerImpl> ready) mutable {
      if (!status.ok()) return self->publishFailed(status);
      self->send(*ready, std::move(outgoing));
    });
  }

  void send(client::ProducerImpl& target, OutgoingData outgoing) {
    // The move holds its Reconsumer, and so the producer, until the send's completion ran.
    target.sendWhileHeld(std::move(outgoing),
                         [self = shared_from_this()](const Status& sent, const MessageId& id) {
                           if (!sent.ok()) return self->publishFailed(sent);
                           self->acknowledge(id);
                         });
  }

  void acknowledge(const MessageId& stored) {
    consumer->acknowledge(
        message,
        [self = shared_from_this(), stored](const Status& acked) {
          if (acked.ok()) {
            // The reading the acknowledgement's answer was counted with
            // (common/shared_reading.hpp).
            const auto now = SharedReading::steadyNow(*self->consumer->client().clock());
            self->metrics->moved(self->route, now - self->started);
          }
          if (acked.ok()) return self->done(acked);
          // The copy is stored: calling again would start a second chain (SPEC.md section 1).
          // So also when the consumer was closed meanwhile (its close's grace ran out before the
          // receipt came; closes take the producers first so that this is rare): the original
          // was not acknowledged and comes back to the next subscriber, which the caller must be
          // told.
          self->done(Status(errc::acknowledgement_unconfirmed,
                            "message " + self->message.id().toString() + " is stored in " +
                                self->producer->topic() + " as " + stored.toString() +
                                ", but its acknowledgement was not confirmed: " + acked.message));
        },
        client::ConsumerImpl::AckDispatch::confirmed);
  }

  // Not acknowledged: the original comes back after the negative-ack delay.
  void publishFailed(const Status& status) const {
    consumer->negativeAcknowledge(message);
    done(Status(status.code, "publishing message " + message.id().toString() + " to " +
                                 producer->topic() + " failed: " + status.message));
  }
};

}  // namespace

void Reconsumer::moveAtLeastOnce(const Message& message, OutgoingData outgoing,
                                 LazyProducer& producer, Route route,
                                 std::chrono::steady_clock::time_point started, Callback<> done) {
  // Made here, on the caller's thread, and freed on the I/O thread: from the recycled blocks.
  auto move = std::allocate_shared<AtLeastOnceMove>(RecyclingAllocator<AtLeastOnceMove>());
  move->owner = shared_from_this();
  move->consumer = consumer_.get();
  move->message = message;
  move->producer = &producer;
  move->route = std::move(route);
  move->metrics = moveMetrics_.get();
  move->started = started;
  move->done = std::move(done);
  move->start(std::move(outgoing));
}

}  // namespace reconsume::detail::retry
