// PulsarProducer: the batching half of sending (BatchContainer holds the open batches).
//
// A message joins its open batch on the sender's thread, under batchMutex_; what crosses to the
// strand is a batch that is full, or that must go ahead of a message that cannot join it (an
// entry of its own, or one of another delay): one hand-over per entry. The strand writes what the
// inbox brings in order, and its timer writes the batches that are due (maxPublishDelay after
// their first message). Every push to the inbox of a producer with batching on happens under
// batchMutex_, and the strand takes the inbox and the due batches under it too: together they
// keep the order of the sends.
#include <boost/asio/post.hpp>

#include "common/epoch_time.hpp"
#include "pulsar/pulsar_producer.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

// Room kept below the broker's maximum message size for the entry's own metadata.
constexpr std::size_t kEntryOverhead = 1024;

}  // namespace

std::size_t PulsarProducer::batchRoom(const BatchedMessage& message) const {
  // What the entry's metadata may repeat of the message: its keys, shared by the whole batch.
  const std::size_t keys = (message.key ? message.key->size() : 0) +
                           (message.orderingKey ? message.orderingKey->size() : 0);
  const std::size_t max = maxMessageSize_.load();
  std::size_t room = max > kEntryOverhead + keys ? max - kEntryOverhead - keys : 0;
  // Compressed, incompressible bytes grow: by a sixth at most (snappy's bound; LZ4, zstd and
  // zlib add less). The batch must fit the limit after that.
  if (options_.compression != Compression::none) room = room / 7 * 6;
  return room;
}

bool PulsarProducer::batches(const OutgoingData& message) const {
  if (!options_.batching.enabled) return false;
  if (message.deliverAfter || message.deliverAt) return options_.batching.delayedWindow.count() > 0;
  return true;
}

bool PulsarProducer::handOpenBatchesLocked() {
  bool post = false;
  for (auto& entry : batches_.takeAll()) post |= inbox_.emplace(ReadyBatch{std::move(entry)});
  return post;
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
  std::optional<BatchedMessage> batched;  // made in place: no move of it here
  try {
    batched.emplace(std::move(message), deliverAtMs);
  } catch (...) {
    return done(Status::fromException(std::current_exception()), MessageId());
  }
  // Too big to share an entry within the broker's limit: alone, where its exact size is checked.
  const std::size_t room = batchRoom(*batched);
  const bool alone = batched->bytes() > room;
  bool post = false, arm = false;
  {
    std::unique_lock lock(batchMutex_);
    if (!batchesEnded_.ok()) {
      auto why = batchesEnded_;
      lock.unlock();
      return done(why, MessageId());
    }
    if (alone) {
      // Too big to share an entry: alone, after the open batches (refused there if too big).
      post = handOpenBatchesLocked();
      post |= inbox_.emplace(Alone{std::move(*batched), std::move(done)});
    } else {
      // The clock is read only when the message opens a batch (most join one).
      auto taken = batches_.add(
          std::move(*batched), std::move(done),
          [clock = network_->clock().get()] { return clock->now(); }, room);
      if (taken.closed) post |= inbox_.emplace(ReadyBatch{std::move(*taken.closed)});
      if (taken.full) post |= inbox_.emplace(ReadyBatch{std::move(*taken.full)});
      if (!batchTimerWanted_ && !batches_.empty()) arm = batchTimerWanted_ = true;
    }
  }
  if (post) postDrain();
  if (arm) asio::post(strand_, [self = shared_from_this()] { self->armBatchTimer(); });
}

void PulsarProducer::writeAlone(Alone&& alone) {
  if (auto status = closedOrEnded(); !status.ok()) return alone.done(status, MessageId());
  OutgoingEntry entry;
  entry.deliverAtMs = alone.message.deliverAtMs;
  entry.batch.push_back(std::move(alone.message));
  enqueueInOrder(BatchContainer::buildEntry(entry, 0, entryContext()), std::move(alone.done));
}

void PulsarProducer::writeBatch(std::optional<OutgoingEntry> entry) {
  if (!entry) return;
  auto done = BatchContainer::completion(*entry, partition_);
  if (auto status = closedOrEnded(); !status.ok()) return done(status, MessageId());
  admit(std::move(*entry), std::move(done));
}

void PulsarProducer::flushBatches() {
  // What the inbox holds is older than what is open: both taken at one instant, in that order.
  std::vector<Handed> handed;
  std::vector<OutgoingEntry> open;
  {
    std::lock_guard lock(batchMutex_);
    inbox_.take(handed);
    open = batches_.takeAll();
  }
  writeHanded(handed);
  for (auto& entry : open) writeBatch(std::move(entry));
}

// Armed for the batch due first; batches that open later are due later, so one armed timer
// covers them: when it fires it writes what is due and arms for the next. A sender that opens a
// batch while no timer is wanted asks for one (batchTimerWanted_).
void PulsarProducer::armBatchTimer() {
  std::optional<Timer::time_point> due;
  {
    std::lock_guard lock(batchMutex_);
    due = batches_.nextDue();
    batchTimerWanted_ = due.has_value();
  }
  if (!due) return;
  batchTimer_.expiresAt(*due);
  batchTimer_.asyncWait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    if (ec == asio::error::operation_aborted) {
      std::lock_guard lock(self->batchMutex_);
      self->batchTimerWanted_ = false;
      return;
    }
    std::vector<Handed> handed;
    std::vector<OutgoingEntry> due;
    {
      std::lock_guard lock(self->batchMutex_);
      self->inbox_.take(handed);
      due = self->batches_.takeDue(self->attachment_.now());
    }
    self->writeHanded(handed);
    for (auto& entry : due) self->writeBatch(std::move(entry));
    self->armBatchTimer();
    self->drainedMaybeClose();  // a batch opened by a send racing close() was failed just now
  });
}

void PulsarProducer::failBatches(const Status& why) {
  std::vector<Handed> handed;
  std::vector<OutgoingEntry> open;
  {
    std::lock_guard lock(batchMutex_);
    batchesEnded_ = why;
    inbox_.take(handed);
    open = batches_.takeAll();
  }
  for (auto& item : handed) {
    if (auto* ready = std::get_if<ReadyBatch>(&item)) {
      BatchContainer::completion(ready->entry, partition_)(why, {});
    } else if (auto* alone = std::get_if<Alone>(&item)) {
      alone->done(why, MessageId());
    } else {
      std::get<Unbatched>(item).done(why, MessageId());
    }
  }
  for (auto& entry : open) BatchContainer::completion(entry, partition_)(why, {});
}

}  // namespace reconsume::detail::pulsar
