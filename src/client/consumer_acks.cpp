// A consumer's acknowledgements: at once, grouped in time (client/ack_grouper.hpp), or in a
// transaction.
#include "client/consumer_impl.hpp"
#include "common/shared_reading.hpp"

namespace reconsume::detail::client {

void ConsumerImpl::startAckGroup() {
  const auto groupTime = spec_.options.acknowledgmentGroupTime;
  if (!spec_.durable || groupTime.count() <= 0) return;
  ackGroup_ = std::make_shared<AckGrouper>(
      client_->io().get_executor(), SteadyClock::real(), groupTime,
      [weak = weak_from_this()](std::vector<AckGrouper::Held>& group) {
        auto self = weak.lock();
        for (auto& held : group) {
          if (!self) {
            // Dropped without close(): the grouper hands on what it held as it is destroyed
            // with the consumer (or a timer ran it just then). Never sent; each caller told.
            if (held.done) {
              held.done(Status(errc::closed, "the consumer of message " +
                                                 held.message.id().toString() + " is gone"));
            }
            continue;
          }
          self->sendAck(held.slot, held.message, std::move(held.done), held.started);
        }
      });
}

void ConsumerImpl::acknowledge(const Message& message, Callback<> done, AckDispatch dispatch) {
  std::size_t slot = 0;
  if (auto status = settled(message, slot); !status.ok()) return done(status);
  // A retry's acknowledgement starts at its send's receipt (common/shared_reading.hpp).
  const auto started = SharedReading::steadyNow(*client_->clock());
  if (!ackGroup_ || dispatch == AckDispatch::confirmed) {
    return sendAck(slot, message, std::move(done), started);
  }
  if (spec_.options.acknowledgmentReceipts) {
    ackGroup_->add({slot, message, std::move(done), started});
    return;
  }
  // The caller is told now; a failure the broker answers later is logged (its message then comes
  // again: at least once). Held without a callback.
  ackGroup_->add({slot, message, nullptr, started});
  done({});
}

void ConsumerImpl::SlotMetrics::count(const Status& status,
                                      std::chrono::steady_clock::duration took) const {
  if (!status.ok()) return;
  acknowledged->add();
  ackDuration->record(std::chrono::duration<double>(took).count());
}

void ConsumerImpl::counted(std::size_t slot, const Status& status,
                           std::chrono::steady_clock::time_point started,
                           std::chrono::steady_clock::time_point now) const {
  if (const auto& metrics = slots_[slot]->metrics) metrics->count(status, now - started);
}

void ConsumerImpl::sendAck(std::size_t slot, const Message& message, Callback<> done,
                           std::chrono::steady_clock::time_point started) {
  auto& backend = *slots_[slot]->backend;
  // One completion: counting the acknowledgement, telling the caller (or, for a grouped one
  // without a caller waiting, logging a failure) and sending it again when its answer did not
  // come.
  backend.acknowledge(*message.impl(), [self = shared_from_this(), slot, data = message.impl(),
                                        started, done = std::move(done)](const Status& status) {
    if (status.code != errc::connection_lost)
      return self->answered(slot, *data, started, status, done);
    // The answer did not come: the broker may have the acknowledgement or not. Sent again (an
    // acknowledgement by id stays valid across sessions), it waits for the consumer's next
    // session and goes out before new messages are asked for (SPEC.md section 1).
    self->slots_[slot]->backend->acknowledge(
        *data, [self, slot, data, started, done = std::move(done)](const Status& again) {
          self->answered(slot, *data, started, again, done);
        });
  });
}

void ConsumerImpl::answered(std::size_t slot, const MessageData& data,
                            std::chrono::steady_clock::time_point started, const Status& status,
                            const Callback<>& done) const {
  const Clock& clock = *client_->clock();
  const auto now = SharedReading::steadyNow(clock);
  counted(slot, status, started, now);
  if (done) {
    // What the answer ends at once (a retry's move) ends at this reading.
    SharedReading reading(clock, now);
    return done(status);
  }
  if (!status.ok()) {
    // A lost connection fails a whole group at once: one warning and a count (failure_log.hpp).
    client_->failureLog().warn("grouped acknowledgements", status.code, {this, "consumer"},
                               "the grouped acknowledgement of " + data.id.toString() + " on " +
                                   data.topic.str() + " failed (" + status.message +
                                   "): the message will be delivered again");
  }
}

void ConsumerImpl::acknowledge(const Message& message,
                               const std::shared_ptr<BackendTransaction>& transaction,
                               Callback<> done) {
  std::size_t slot = 0;
  if (auto status = settled(message, slot); !status.ok()) return done(status);
  // Pending until the commit; counted once the broker took it into the transaction (an abort
  // does not take the count back).
  slots_[slot]->backend->acknowledge(
      *message.impl(), transaction,
      [metrics = slots_[slot]->metrics, done = std::move(done)](const Status& status) {
        if (status.ok() && metrics) metrics->acknowledged->add();
        done(status);
      });
}

}  // namespace reconsume::detail::client
