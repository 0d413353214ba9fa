#include "pulsar/pulsar_producer.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/post.hpp>

#include "common/epoch_time.hpp"
#include "common/topic_name.hpp"
#include "protocol/commands.hpp"
#include "protocol/compression.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/message_id.hpp"
#include "protocol/server_error.hpp"
#include "pulsar/pulsar_transaction.hpp"
#include "reconsume/detail/recycled_blocks.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

PulsarProducer::PulsarProducer(std::shared_ptr<Network> network, ProducerOptions options)
    : network_(std::move(network)),
      options_(std::move(options)),
      partition_(partitionIndexOf(options_.topic)),
      producerId_(++network_->lastProducerId),
      strand_(asio::make_strand(network_->executor)),
      attachment_(strand_, network_, *this, options_.topic),
      queue_(options_.maxPendingMessages, options_.blockIfQueueFull),
      batchTimer_(strand_, network_->clock()),
      batches_(options_.batching),
      sendTimer_(strand_, network_->clock()) {}

void PulsarProducer::create(std::shared_ptr<Network> network, OpenHandles<Handle>& handles,
                            const ProducerOptions& options,
                            Callback<std::shared_ptr<client::BackendProducer>> done) {
  std::shared_ptr<PulsarProducer> producer(new PulsarProducer(std::move(network), options));
  if (!handles.add(producer)) {
    producer->shutdown(Status(errc::closed, "the client is closed"));
    return done(Status(errc::closed, "the client is closed"), nullptr);
  }
  asio::post(producer->strand_, [producer, done = std::move(done)]() mutable {
    producer->attachment_.start([producer, done = std::move(done)](const Status& status) {
      done(status, status.ok() ? producer : nullptr);
    });
  });
}

std::string PulsarProducer::describe() const {
  return "producer " + (name_.empty() ? std::to_string(producerId_) : "'" + name_ + "'") + " of " +
         options_.topic;
}

std::string PulsarProducer::creationFailure() const {
  return "cannot create the producer of " + options_.topic;
}

// ----- attachment -------------------------------------------------------------------------------

proto::BaseCommand PulsarProducer::createRequest(std::uint64_t id, std::uint64_t requestId) {
  protocol::ProducerRequest request;
  request.topic = options_.topic;
  request.producerId = id;
  request.requestId = requestId;
  request.producerName = name_.empty() ? options_.producerName : name_;
  request.nameFromBroker = nameFromBroker_;
  request.epoch = epoch_++;
  request.topicEpoch = topicEpoch_;
  request.initialSubscriptionName = options_.initialSubscription.value_or("");
  request.metadata = options_.metadata;
  return protocol::producer(request);
}

proto::BaseCommand PulsarProducer::closeRequest(std::uint64_t id, std::uint64_t requestId) {
  return protocol::closeProducer(id, requestId);
}

void PulsarProducer::onAttached(const Response& created, bool first) {
  const auto& success = created.command.producer_success();
  // Senders read it to tell a message that must be an entry of its own.
  if (auto connection = attachment_.connection()) maxMessageSize_ = connection->maxMessageSize();
  name_ = success.producer_name();
  nameFromBroker_ = options_.producerName.empty();
  if (success.has_topic_epoch()) topicEpoch_ = success.topic_epoch();
  if (first && success.last_sequence_id() >= 0) {
    queue_.setNextSequenceId(static_cast<std::uint64_t>(success.last_sequence_id()) + 1);
  }
  if (first) {
    network_->log.debug(describe() + " is created (producer name " + name_ + ")");
  } else {
    network_->log.info(describe() + " is connected again; writing " +
                       std::to_string(queue_.pending().size()) + " unconfirmed messages again");
  }
  writeNew(queue_.pending().size());
}

void PulsarProducer::onFinished(const AttachMachine::Action& how) {
  using Kind = AttachMachine::Action::Kind;
  sendTimer_.cancel();
  sendTimerAt_.reset();
  batchTimer_.cancel();
  if (how.kind == Kind::ended) {
    // The topic is gone (deleted, and not created on demand): nothing will be sent any more.
    network_->log.error(describe() + " cannot be re-created: " + how.status.message);
    ended_ = how.status;
  }
  Status why = !ended_.ok() ? ended_
               : !how.status.ok()
                   ? how.status
                   : Status(errc::closed, describe() + " was closed before it could send");
  failPending(why);
}

void PulsarProducer::onDetached(const Status& why) {
  // Written on the session that ended, unconfirmed: perhaps stored in its transaction already.
  // Failing it (rather than writing it again) makes the transaction abort on commit, so the
  // message cannot commit twice (SPEC.md section 1, transactional mode).
  for (auto& lost : queue_.takeWrittenTransactional()) {
    lost.done(Status(errc::connection_lost,
                     "send to " + options_.topic + " in a transaction: the connection broke " +
                         "before the broker confirmed it (" + why.message +
                         "); it may be stored in the transaction already, so it is not written "
                         "again and the transaction can only abort"),
              MessageId());
  }
  // Their room goes to messages waiting for it; all are written once attached again.
  queue_.refill(encoder());
  armSendTimer();
}

void PulsarProducer::onSessionLost(std::uint64_t session, const Status& why) {
  asio::post(strand_, [self = shared_from_this(), session, why] {
    self->attachment_.sessionLost(session, why);
  });
}

// ----- sending ----------------------------------------------------------------------------------

Status PulsarProducer::encodeOutgoing(const OutgoingData& message,
                                      protocol::EncodedMessage& out) const {
  if (closed_) return Status(errc::closed, "producer of " + options_.topic + " is closed");
  // Compression is the expensive part: done here, on the caller's thread.
  try {
    protocol::SendContext context;
    context.publishTimeMs =
        toEpochMillis(std::chrono::system_clock::now());  // the broker's clock is the system's
    context.compression = protocol::toProto(options_.compression);
    out = protocol::encodeMessage(message, context);
  } catch (...) {
    return Status::fromException(std::current_exception());
  }
  return {};
}

protocol::SendContext PulsarProducer::entryContext() const {
  protocol::SendContext context;
  context.producerName = name_;
  context.publishTimeMs = toEpochMillis(std::chrono::system_clock::now());
  context.compression = protocol::toProto(options_.compression);
  return context;
}

void PulsarProducer::send(OutgoingData message, BackendCallback<MessageId>&& done) {
  if (batches(message)) return sendBatched(std::move(message), std::move(done));
  protocol::EncodedMessage encoded;
  if (auto status = encodeOutgoing(message, encoded); !status.ok())
    return done(status, MessageId());
  hand(Unbatched{std::move(encoded), std::move(done)});
}

void PulsarProducer::hand(Unbatched&& send) {
  if (!options_.batching.enabled) {  // no batches to keep the order with
    if (inbox_.emplace(std::move(send))) postDrain();
    return;
  }
  bool post = false;
  {
    // After the open batches: entries keep the order of the sends.
    std::unique_lock lock(batchMutex_);
    if (!batchesEnded_.ok()) {
      auto why = batchesEnded_;
      lock.unlock();
      return send.done(why, MessageId());
    }
    post = handOpenBatchesLocked();
    post |= inbox_.emplace(std::move(send));
  }
  if (post) postDrain();
}

void PulsarProducer::postDrain() {
  // Posted from the sender's thread, run and freed on the I/O thread: from the recycled blocks.
  asio::post(strand_, asio::bind_allocator(RecyclingAllocator<char>(),
                                           [self = shared_from_this()] { self->drainInbox(); }));
}

void PulsarProducer::drainInbox() {
  inbox_.take(drained_);
  writeHanded(drained_);
  drained_.clear();
}

void PulsarProducer::writeHanded(std::vector<Handed>& handed) {
  for (auto& item : handed) {
    if (auto* ready = std::get_if<ReadyBatch>(&item)) {
      writeBatch(std::move(ready->entry));
    } else if (auto* alone = std::get_if<Alone>(&item)) {
      writeAlone(std::move(*alone));
    } else {
      auto& unbatched = std::get<Unbatched>(item);
      enqueueInOrder(std::move(unbatched.message), std::move(unbatched.done));
    }
  }
}

void PulsarProducer::send(OutgoingData message,
                          const std::shared_ptr<client::BackendTransaction>& transaction,
                          BackendCallback<MessageId> done) {
  auto txn = PulsarTransaction::from(transaction);
  if (!txn) {
    return done(Status(errc::invalid_argument, "send to " + options_.topic +
                                                   ": the transaction is not one of this client's"),
                MessageId());
  }
  auto encoded = std::make_shared<protocol::EncodedMessage>();
  if (auto status = encodeOutgoing(message, *encoded); !status.ok())
    return done(status, MessageId());
  // The id in the metadata files the message in the transaction's buffer; the SEND repeats it
  // (protocol::send copies it there), and a resend after a reconnection carries both again.
  encoded->metadata.set_txnid_most_bits(txn->id().mostBits);
  encoded->metadata.set_txnid_least_bits(txn->id().leastBits);
  if (auto status = txn->begin("send to " + options_.topic); !status.ok()) {
    return done(status, MessageId());
  }
  BackendCallback<MessageId> finish = [txn, done = std::move(done)](const Status& status,
                                                                    MessageId id) {
    txn->finished(status);
    done(status, id);
  };
  txn->registerPartition(
      options_.topic, [self = shared_from_this(), encoded, finish](const Status& status) {
        if (!status.ok()) return finish(status, MessageId());
        asio::post(self->strand_,
                   [self, encoded, finish] { self->enqueue(std::move(*encoded), finish); });
      });
}

Status PulsarProducer::closedOrEnded() const {
  if (!ended_.ok()) return ended_;
  if (attachment_.closing() || attachment_.finished()) {
    return Status(errc::closed, describe() + " is closed");
  }
  return {};
}

void PulsarProducer::enqueue(protocol::EncodedMessage message, BackendCallback<MessageId> done) {
  if (auto status = closedOrEnded(); !status.ok()) return done(status, MessageId());
  flushBatches();  // entries keep the order of the sends
  enqueueInOrder(std::move(message), std::move(done));
}

void PulsarProducer::enqueueInOrder(protocol::EncodedMessage message,
                                    BackendCallback<MessageId> done) {
  if (auto status = closedOrEnded(); !status.ok()) return done(status, MessageId());
  message.metadata.set_producer_name(name_);
  if (auto connection = attachment_.connection()) maxMessageSize_ = connection->maxMessageSize();
  if (auto status = protocol::checkMessageSize(message, maxMessageSize_); !status.ok()) {
    return done(Status(status.code, status.message + " (" + describe() + ")"), MessageId());
  }
  admit(std::move(message), std::move(done));
}

void PulsarProducer::admit(OutgoingEntry entry, BackendCallback<MessageId> done) {
  auto deadline = options_.sendTimeout.count() > 0 ? attachment_.now() + options_.sendTimeout
                                                   : Timer::time_point::max();
  switch (queue_.admit(std::move(entry), done, deadline, encoder())) {
    case SendQueue::Admitted::pending:
      writeNew(1);
      break;
    case SendQueue::Admitted::waiting:
      break;
    case SendQueue::Admitted::busy:
      return done(Status(errc::producer_busy,
                         describe() + " has " + std::to_string(options_.maxPendingMessages) +
                             " messages waiting for a receipt (maxPendingMessages) and "
                             "blockIfQueueFull is off"),
                  MessageId());
  }
  armSendTimer();
}

SendQueue::Encoder PulsarProducer::encoder() {
  return
      [this](OutgoingEntry& entry, std::uint64_t sequenceId) { return encode(entry, sequenceId); };
}

Bytes PulsarProducer::encode(OutgoingEntry& entry, std::uint64_t sequenceId) const {
  if (!entry.batch.empty()) {
    return BatchContainer::buildFrame(entry, sequenceId, entryContext(), producerId_);
  }
  entry.single.metadata.set_sequence_id(sequenceId);
  return Bytes::adopt(protocol::encodeSend(producerId_, entry.single));
}

void PulsarProducer::writeNew(std::size_t count) {
  if (!attachment_.ready() || count == 0) return;
  const auto& pending = queue_.pending();
  // The frames are shared with the connection, not copied: the queue keeps them for a resend.
  std::vector<Bytes> frames;
  frames.reserve(count);
  for (auto it = pending.end() - static_cast<std::ptrdiff_t>(count); it != pending.end(); ++it) {
    frames.push_back(it->frame);
  }
  attachment_.connection()->send(attachment_.session(), std::move(frames));
  queue_.markWritten(count);
}

void PulsarProducer::refillAndWrite() {
  writeNew(queue_.refill(encoder()));
}

void PulsarProducer::onFrame(protocol::Frame frame) {
  asio::post(strand_,
             [self = shared_from_this(), frame = std::move(frame)] { self->handleFrame(frame); });
}

void PulsarProducer::handleFrame(const protocol::Frame& frame) {
  const auto& command = frame.command;
  // A close counts while the producer is being created too (Attachment::closedByBroker).
  if (attachment_.closedByBroker(command)) return;
  // Receipts still count while closing: the close waits for them.
  if (!attachment_.connection()) return;
  switch (command.type()) {
    case proto::BaseCommand::SEND_RECEIPT:
      return onReceipt(command.send_receipt());
    case proto::BaseCommand::SEND_ERROR: {
      const auto& error = command.send_error();
      auto status = protocol::serverError(error.error(), error.message());
      if (error.error() == proto::TopicTerminatedError) {
        ended_ = Status(status.code, status.message + " (" + describe() + ")");
        return failEverything(ended_);
      }
      if (error.error() == proto::NotAllowedError && refuse(error.sequence_id(), status)) return;
      network_->log.warn(describe() + ": the broker refused message " +
                         std::to_string(error.sequence_id()) + " (" + status.message +
                         "); reconnecting to write it again");
      return attachment_.connection()->drop(attachment_.session(), status);
    }
    default:
      return;
  }
}

bool PulsarProducer::refuse(std::uint64_t sequenceId, const Status& why) {
  // A refusal that writing it again would only repeat (the broker's NotAllowedError: a topic
  // policy's smaller maximum message size, for one) fails the message, as the Java client does;
  // the broker goes on with the messages after it. Only for the oldest pending message: anything
  // else means the broker and this producer disagree about the order, which a new session
  // settles.
  bool outOfOrder = false;
  auto refused = queue_.receipt(sequenceId, outOfOrder);
  if (!refused) return false;
  refused->done(
      Status(why.code, "the broker refused the message of " + describe() + ": " + why.message),
      MessageId());
  refillAndWrite();
  armSendTimer();
  drainedMaybeClose();
  return true;
}

void PulsarProducer::onReceipt(const proto::CommandSendReceipt& receipt) {
  bool outOfOrder = false;
  auto confirmed = queue_.receipt(receipt.sequence_id(), outOfOrder);
  if (outOfOrder) {
    // The broker skipped a message: start over on a new session, which writes all again.
    attachment_.connection()->drop(
        attachment_.session(),
        Status(errc::protocol_error, "receipt for sequence id " +
                                         std::to_string(receipt.sequence_id()) + " while " +
                                         std::to_string(queue_.pending().front().sequenceId) +
                                         " is the oldest unconfirmed message of " + describe()));
    return;
  }
  if (confirmed) confirmed->done({}, protocol::toMessageId(receipt.message_id(), partition_));
  refillAndWrite();
  armSendTimer();
  drainedMaybeClose();
}

void PulsarProducer::armSendTimer() {
  auto next = queue_.nextDeadline();
  // Nothing pending leaves an armed timer alone: cancelling it and arming it again for each
  // burst (a retry producer's queue empties after every batch) cost a timer update and three
  // allocations a batch. Firing early, it finds nothing due and arms for what is pending then.
  if (!next) return;
  if (sendTimerAt_ && *sendTimerAt_ <= *next) return;
  sendTimerAt_ = next;
  sendTimer_.expiresAt(*next);
  // Held weakly: the timer stays armed while nothing is pending, and a producer the application
  // dropped must go (failing what it still holds with closed), not live on to publish it.
  sendTimer_.asyncWait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    if (auto self = weak.lock()) self->onSendTimer();
  });
}

void PulsarProducer::onSendTimer() {
  sendTimerAt_.reset();
  auto expired = queue_.expire(attachment_.now());
  Status timeout(errc::timeout, "no receipt within " +
                                    std::to_string(options_.sendTimeout.count()) +
                                    " ms (sendTimeout) from " + describe());
  for (auto& done : expired) done(timeout, MessageId());
  refillAndWrite();
  armSendTimer();
  drainedMaybeClose();
}

void PulsarProducer::failPending(const Status& why) {
  failBatches(why);
  for (auto& done : queue_.takeAll()) done(why, MessageId());
}

void PulsarProducer::failEverything(const Status& why) {
  failPending(why);
  armSendTimer();
  drainedMaybeClose();
}

// ----- closing ----------------------------------------------------------------------------------

PulsarProducer::~PulsarProducer() {
  // Whatever is still held was never confirmed: written or not, the broker may or may not have
  // stored it, as when a send times out.
  const Status gone(errc::closed, "the producer of " + options_.topic +
                                      " was dropped without close() before the broker confirmed "
                                      "the message");
  failPending(gone);
}

void PulsarProducer::flush() {
  if (!options_.batching.enabled) return;
  asio::post(strand_, [self = shared_from_this()] { self->flushBatches(); });
}

void PulsarProducer::close(Callback<> done) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    self->flushBatches();  // what was sent before close() is written, then close waits for it
    self->attachment_.close(std::move(done));
  });
}

void PulsarProducer::drainedMaybeClose() {
  if (!attachment_.closing() || !queue_.empty()) return;
  {
    std::lock_guard lock(batchMutex_);
    if (!batches_.empty()) return;
  }
  attachment_.closeRemote();
}

void PulsarProducer::shutdown(const Status& why) {
  closed_ = true;
  asio::post(strand_, [self = shared_from_this(), why] {
    self->ended_ = why;
    self->attachment_.shutdown(why);
  });
}

}  // namespace reconsume::detail::pulsar
