// A consumer's operations: acknowledgements (batched per burst), redelivery, seek and the last
// message id — each waiting for the subscription when it is being renewed.
#include <boost/asio/post.hpp>

#include "common/shared_reading.hpp"
#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/message_id.hpp"
#include "pulsar/pulsar_consumer.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

// ----- waiting for the subscription -------------------------------------------------------------

bool PulsarConsumer::servable() const {
  // While a seek is in flight the broker may already have dropped this consumer (it disconnects
  // the subscription's consumers before it answers): a request sent now could fail with
  // "Consumer not found", so it waits for the subscription after the seek.
  return attachment_.ready() && !attachment_.held();
}

void PulsarConsumer::whenReady(std::function<void(const Status&)> run) {
  if (servable()) return run({});
  if (attachment_.closing() || attachment_.finished()) {
    return run(Status(errc::closed, describe() + " is closed"));
  }
  deferred_.push_back({attachment_.now() + network_->operationTimeout(), std::move(run)});
  armDeferredTimer();
}

void PulsarConsumer::runDeferred() {
  while (!deferred_.empty() && servable()) {
    auto next = std::move(deferred_.front());
    deferred_.pop_front();
    next.run({});
  }
  armDeferredTimer();
}

void PulsarConsumer::failDeferred(const Status& why) {
  for (auto& deferred : std::exchange(deferred_, {})) deferred.run(why);
}

void PulsarConsumer::armDeferredTimer() {
  if (deferred_.empty()) return deferredTimer_.cancel();
  deferredTimer_.expiresAt(deferred_.front().deadline);
  deferredTimer_.asyncWait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->onDeferredTimer();
  });
}

void PulsarConsumer::onDeferredTimer() {
  auto now = attachment_.now();
  std::vector<std::function<void(const Status&)>> expired;
  while (!deferred_.empty() && deferred_.front().deadline <= now) {
    expired.push_back(std::move(deferred_.front().run));
    deferred_.pop_front();
  }
  Status timeout(errc::timeout, describe() + " was not subscribed again within " +
                                    std::to_string(network_->operationTimeout().count()) + " ms");
  armDeferredTimer();
  for (auto& run : expired) run(timeout);
}

// ----- acknowledgements -------------------------------------------------------------------------

void PulsarConsumer::acknowledge(const MessageData& message, BackendCallback<> done) {
  // Acknowledgements made in one burst reach the strand together and go out as one ACK command
  // with one receipt.
  if (ackInbox_.push({message.id,
                      std::static_pointer_cast<protocol::BatchAckTracker>(message.backendState),
                      std::move(done)})) {
    asio::post(strand_, [self = shared_from_this()] {
      self->drainAcks();
      self->flushAcks();
    });
  }
}

void PulsarConsumer::drainAcks() {
  ackInbox_.take(ackDrained_);
  // The acknowledgements recorded here complete at one instant: one reading of the clock.
  SharedReading reading;
  for (auto& [id, tracker, done] : ackDrained_) {
    if (tracker && id.batchIndex() >= 0) {
      batches_.acknowledge({id.ledger(), id.entry()}, tracker, id.batchIndex());
      // An index acknowledged before is sent again (its answer was lost), as is the entry's ACK
      // once it is complete — or, with batch-index acknowledgements, the indexes acknowledged
      // so far. An entry complete only with indexes the broker reported acknowledged elsewhere
      // (perhaps inside a transaction still open) is acknowledged by this consumer's own
      // indexes, never as a whole: the broker has batch-index acknowledgement, or it would not
      // have reported them.
      if (!tracker->complete() && !spec_.batchIndexAcks) {
        done({});
        continue;
      }
      if (!tracker->complete() || tracker->acknowledgedElsewhere() > 0) {
        acksToSend_.push_back({MessageId(id.ledger(), id.entry(), id.partition(), id.batchIndex(),
                                         tracker->batchSize()),
                               std::move(done), tracker->ackSet()});
        continue;
      }
    }
    acksToSend_.push_back({id, std::move(done), {}});
  }
  ackDrained_.clear();
}

void PulsarConsumer::ackEntry(AckToSend ack) {
  // Acknowledgements made in one burst go out together: one ACK command, one receipt. The flush
  // is posted behind them, so it adds no waiting.
  acksToSend_.push_back(std::move(ack));
  if (acksToSend_.size() > 1) return;
  asio::post(strand_, [self = shared_from_this()] { self->flushAcks(); });
}

void PulsarConsumer::flushAcks() {
  if (acksToSend_.empty()) return;
  auto batch = std::exchange(acksToSend_, {});
  if (!servable()) {
    // No subscription now: wait for the next one like any operation.
    for (auto& ack : batch) {
      whenReady([self = shared_from_this(), ack = std::move(ack)](const Status& status) mutable {
        if (!status.ok()) return ack.done(status);
        self->ackEntry(std::move(ack));
      });
    }
    return;
  }
  std::vector<MessageId> ids;
  std::vector<std::vector<std::int64_t>> ackSets;
  std::vector<BackendCallback<>> callbacks;
  bool anyIndexes = false;
  for (const auto& ack : batch) anyIndexes = anyIndexes || !ack.ackSet.empty();
  for (auto& ack : batch) {
    ids.push_back(ack.id);
    if (anyIndexes) ackSets.push_back(std::move(ack.ackSet));
    callbacks.push_back(std::move(ack.done));
  }
  auto requestId = attachment_.connection()->newRequestId();
  std::string what = ids.size() == 1 ? "ACK " + ids[0].toString()
                                     : "ACK of " + std::to_string(ids.size()) + " messages from " +
                                           ids[0].toString();
  requestAck(requestId, protocol::ack(attachment_.id(), ids, ackSets, requestId),
             what + " on " + spec_.topic, [callbacks = std::move(callbacks)](const Status& status) {
               SharedReading reading;  // one answer, one instant (common/shared_reading.hpp)
               for (const auto& done : callbacks) done(status);
             });
}

void PulsarConsumer::requestAck(std::uint64_t requestId, const proto::BaseCommand& command,
                                std::string what, Callback<> done) {
  acksInFlight_.insert(requestId);
  attachment_.connection()->request(
      requestId, command, std::move(what),
      [self = shared_from_this(), requestId, done = std::move(done)](Response response) {
        asio::post(self->strand_, [self, requestId] { self->acksInFlight_.erase(requestId); });
        done(response.status);
      });
}

void PulsarConsumer::onDetached(const Status& why) {
  // A broker that closed this consumer (a topic unloaded, moved to another broker) does not
  // answer ACKs that reached it afterwards. Waiting out the operation timeout would help nobody:
  // they fail as if the session had been lost, and the layer above sends them again on the next
  // subscription (an acknowledgement by id stays valid).
  const auto& connection = attachment_.connection();
  for (auto requestId : std::exchange(acksInFlight_, {})) {
    connection->abandon(
        requestId, Status(errc::connection_lost,
                          "no answer to ACK request " + std::to_string(requestId) + " before " +
                              describe() + " was detached (" + why.message + ")"));
  }
}

// ----- redelivery -------------------------------------------------------------------------------

void PulsarConsumer::redeliver(const std::vector<MessageId>& ids) {
  if (spec_.type == SubscriptionType::exclusive || spec_.type == SubscriptionType::failover) {
    // Pulsar redelivers single messages only on Shared and Key_Shared subscriptions.
    return redeliverAll();
  }
  asio::post(strand_, [self = shared_from_this(), ids] {
    if (!self->attachment_.ready() || ids.empty()) return;  // a new subscription redelivers
    self->attachment_.connection()->send(
        self->attachment_.session(),
        protocol::encodeFrame(protocol::redeliver(self->attachment_.id(), ids)));
  });
}

void PulsarConsumer::redeliverAll() {
  asio::post(strand_, [self = shared_from_this()] {
    // Acknowledgements made before the call go out first, or the broker would send their messages
    // again.
    self->drainAcks();
    self->flushAcks();
    if (!self->attachment_.ready()) return;
    bool epochs = self->spec_.type == SubscriptionType::exclusive ||
                  self->spec_.type == SubscriptionType::failover;
    // On Exclusive and Failover a new consumer epoch makes the broker's messages in flight
    // recognisable as older than the redelivery.
    std::optional<std::uint64_t> epoch;
    if (epochs) epoch = ++self->epoch_;
    self->attachment_.connection()->send(
        self->attachment_.session(),
        protocol::encodeFrame(protocol::redeliver(self->attachment_.id(), {}, epoch)));
    self->sink_->onReset(self->spec_.topic);
    self->sendFlow(self->permits_.reset());
  });
}

// ----- seek and the last message id -------------------------------------------------------------

void PulsarConsumer::seek(const MessageId& id, Callback<> done) {
  asio::post(strand_, [self = shared_from_this(), id, done = std::move(done)]() mutable {
    self->whenReady([self, id, done = std::move(done)](const Status& status) mutable {
      if (!status.ok()) return done(status);
      self->startSeek(id, false, std::move(done));
    });
  });
}

void PulsarConsumer::findTheLastMessage() {
  // As the Java client's reader does: the last message's id, then a seek to it, inclusive. No
  // FLOW until then, so nothing published meanwhile comes ahead of it.
  lastMessageId([self = shared_from_this()](const Status& status, const MessageId& last) {
    asio::post(self->strand_, [self, status, last] {
      if (!self->position_.startsAtUnknownLast() || !self->attachment_.ready()) return;
      if (!status.ok() || last == MessageId::earliest()) return self->readFromTheLatest(status);
      self->network_->log.debug(self->describe() + ": the last message is " + last.toString() +
                                "; reading from there");
      self->startSeek(last, true, [self](const Status& sought) {
        if (!sought.ok()) self->readFromTheLatest(sought);
      });
    });
  });
}

void PulsarConsumer::readFromTheLatest(const Status& why) {
  // Called on the strand. A topic with no message yet: its first message is the next one
  // published. A broker that could not say which is the last, or seek there: rather than wait
  // for ever, what is published next, with a warning.
  if (!position_.startsAtUnknownLast() || !attachment_.ready()) return;
  if (!why.ok()) {
    network_->log.warn(describe() + ": cannot start at the last message (" + why.message +
                       "); reading what is published next");
  } else {
    network_->log.debug(describe() +
                        ": the topic has no message yet; reading what is published next");
  }
  position_.seek(MessageId::latest());
  sendFlow(permits_.resubscribed(false));
}

void PulsarConsumer::startSeek(const MessageId& id, bool inclusive, Callback<> done) {
  // Until the answer, messages are from before the seek, and a close by the broker (which Pulsar
  // sends to the subscription's consumers on a seek) waits for it.
  attachment_.hold();
  auto consumerId = attachment_.id();
  const auto& connection = attachment_.connection();
  auto requestId = connection->newRequestId();
  connection->request(
      requestId, protocol::seek(consumerId, requestId, id),
      "SEEK " + id.toString() + " on " + spec_.topic,
      [self = shared_from_this(), id, inclusive, consumerId,
       done = std::move(done)](Response response) mutable {
        asio::post(self->strand_, [self, id, inclusive, consumerId, done = std::move(done),
                                   response = std::move(response)]() mutable {
          self->onSeekAnswer(id, inclusive, consumerId, std::move(response), std::move(done));
        });
      });
}

void PulsarConsumer::onSeekAnswer(const MessageId& id, bool inclusive, std::uint64_t consumerId,
                                  Response response, Callback<> done) {
  if (attachment_.id() != consumerId || !attachment_.ready()) return done(response.status);
  if (!response.status.ok()) {
    attachment_.released(false, response.status);
    if (servable()) {  // the broker kept this consumer: what waited for the seek goes now
      runDeferred();
      flushAcks();
    }
    return done(response.status);
  }
  position_.seek(id, inclusive);
  batches_.clear();
  // What the sink holds is from before the seek (it may have been delivered after the layer
  // above emptied its queue for the seek); the next subscription starts at the new position.
  sink_->onReset(spec_.topic);
  resetOnSubscribe_ = true;
  attachment_.released(true, Status(errc::connection_lost, "seek to " + id.toString()));
  done({});
}

void PulsarConsumer::lastMessageId(Callback<MessageId> done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    self->whenReady([self, done = std::move(done)](const Status& status) mutable {
      if (!status.ok()) return done(status, MessageId());
      const auto& connection = self->attachment_.connection();
      auto requestId = connection->newRequestId();
      connection->request(
          requestId, protocol::getLastMessageId(self->attachment_.id(), requestId),
          "GET_LAST_MESSAGE_ID " + self->spec_.topic,
          [partition = self->partition_, done = std::move(done)](Response response) {
            if (!response.status.ok()) return done(response.status, MessageId());
            const auto& last = response.command.getlastmessageidresponse().last_message_id();
            // An empty topic answers with entry -1 (as an unsigned number).
            if (static_cast<std::int64_t>(last.entryid()) < 0) {
              return done({}, MessageId::earliest());
            }
            done({}, protocol::toMessageId(last, partition));
          });
    });
  });
}

}  // namespace reconsume::detail::pulsar
