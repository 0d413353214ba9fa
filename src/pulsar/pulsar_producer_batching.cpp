// PulsarProducer: the batching half of sending (BatchContainer holds the open batches).
#include <boost/asio/post.hpp>

#include "common/epoch_time.hpp"
#include "pulsar/pulsar_producer.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

// Room kept below the broker's maximum message size for the entry's own metadata.
constexpr std::size_t kEntryOverhead = 1024;

}  // namespace

bool PulsarProducer::batches(const OutgoingData& message) const {
  if (!options_.batching.enabled) return false;
  if (message.deliverAfter || message.deliverAt) return options_.batching.delayedWindow.count() > 0;
  return true;
}

void PulsarProducer::sendBatched(OutgoingData message, BackendCallback<MessageId>&& done) {
  if (closed_) {
    return done(Status(errc::closed, "producer of " + options_.topic + " is closed"), MessageId());
  }
  std::optional<std::uint64_t> deliverAtMs;
  if (message.deliverAt) {
    deliverAtMs = toEpochMillis(*message.deliverAt);
  } else if (message.deliverAfter) {
    deliverAtMs = toEpochMillis(std::chrono::system_clock::now()) +
                  static_cast<std::uint64_t>(message.deliverAfter->count());
  }
  BatchedMessage batched;
  try {
    batched = BatchedMessage::of(std::move(message), deliverAtMs, nullptr);
  } catch (...) {
    return done(Status::fromException(std::current_exception()), MessageId());
  }
  batched.done = std::move(done);
  hand(std::move(batched));
}

void PulsarProducer::addToBatch(BatchedMessage&& message, Timer::time_point now) {
  if (auto status = closedOrEnded(); !status.ok()) return message.done(status, MessageId());
  if (auto connection = attachment_.connection()) maxMessageSize_ = connection->maxMessageSize();
  if (message.bytes() + kEntryOverhead > maxMessageSize_) {
    // Too big to share an entry: alone, after the open batches (and refused if too big for that).
    OutgoingEntry alone;
    auto done = std::move(message.done);
    alone.deliverAtMs = message.deliverAtMs;
    alone.batch.push_back(std::move(message));
    return enqueue(BatchContainer::buildEntry(alone, 0, entryContext()), std::move(done));
  }
  auto key = batches_.keyOf(message);
  if (!batches_.fits(message)) writeBatch(batches_.take(key));
  if (batches_.add(std::move(message), now)) writeBatch(batches_.take(key));  // full
  armBatchTimer();
}

void PulsarProducer::writeBatch(std::optional<OutgoingEntry> entry) {
  if (!entry) return;
  auto done = BatchContainer::completion(*entry, partition_);
  admit(std::move(*entry), std::move(done));
}

void PulsarProducer::flushBatches() {
  for (auto& entry : batches_.takeAll()) writeBatch(std::move(entry));
}

// Armed for the batch due first; batches that open later are due later, so one armed timer
// covers them: when it fires it writes what is due and arms for the next.
void PulsarProducer::armBatchTimer() {
  if (batchTimerArmed_) return;
  auto due = batches_.nextDue();
  if (!due) return;
  batchTimerArmed_ = true;
  batchTimer_.expiresAt(*due);
  batchTimer_.asyncWait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    self->batchTimerArmed_ = false;
    if (ec == asio::error::operation_aborted) return;
    for (auto& entry : self->batches_.takeDue(self->attachment_.now())) {
      self->writeBatch(std::move(entry));
    }
    self->armBatchTimer();
  });
}

void PulsarProducer::failBatches(const Status& why) {
  for (auto& entry : batches_.takeAll()) BatchContainer::completion(entry, partition_)(why, {});
}

}  // namespace reconsume::detail::pulsar
