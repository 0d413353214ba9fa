// A consumer's operations: flow permits, acknowledgements (batched per burst), redelivery,
// seek and the last message id — each waiting for the subscription when it is being renewed.
#include <boost/asio/post.hpp>

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/message_id.hpp"
#include "pulsar/pulsar_consumer.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

// ----- operations -------------------------------------------------------------------------------

void PulsarConsumer::flow(std::uint32_t permits) {
  asio::post(strand_, [self = shared_from_this(), permits] {
    // Counted even while disconnected: a reader resuming grants what the broker held.
    self->returnPermits(permits);
  });
}

void PulsarConsumer::whenReady(std::function<void(const Status&)> run) {
  if (state_ == State::ready) return run({});
  if (state_ == State::closing || state_ == State::closed) {
    return run(Status(errc::closed, describe() + " is closed"));
  }
  deferred_.push_back({Clock::now() + network_->operationTimeout(), std::move(run)});
  armDeferredTimer();
}

void PulsarConsumer::runDeferred() {
  while (!deferred_.empty() && state_ == State::ready) {
    auto next = std::move(deferred_.front());
    deferred_.pop_front();
    next.run({});
  }
  armDeferredTimer();
}

void PulsarConsumer::armDeferredTimer() {
  if (deferred_.empty()) {
    deferredTimer_.cancel();
    return;
  }
  deferredTimer_.expires_at(deferred_.front().deadline);
  deferredTimer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto now = Clock::now();
    std::vector<std::function<void(const Status&)>> expired;
    while (!self->deferred_.empty() && self->deferred_.front().deadline <= now) {
      expired.push_back(std::move(self->deferred_.front().run));
      self->deferred_.pop_front();
    }
    Status timeout(errc::timeout, self->describe() + " was not subscribed again within " +
                                      std::to_string(self->network_->operationTimeout().count()) +
                                      " ms");
    self->armDeferredTimer();
    for (auto& run : expired) run(timeout);
  });
}

void PulsarConsumer::acknowledge(const MessageData& message, Callback<> done) {
  asio::post(
      strand_,
      [self = shared_from_this(), id = message.id,
       tracker = std::static_pointer_cast<detail::protocol::BatchAckTracker>(message.backendState),
       done = std::move(done)]() mutable {
        if (tracker && id.batchIndex() >= 0) {
          switch (self->batches_.acknowledge({id.ledger(), id.entry()}, tracker, id.batchIndex())) {
            case BatchAcks::Outcome::already:
            case BatchAcks::Outcome::recorded:
              return done({});
            case BatchAcks::Outcome::complete:
              break;
          }
        }
        self->whenReady([self, id, done = std::move(done)](const Status& status) mutable {
          if (!status.ok()) return done(status);
          self->ackEntry(id, std::move(done));
        });
      });
}

void PulsarConsumer::ackEntry(const MessageId& id, Callback<> done) {
  // Acknowledgements made in one burst go out together: one ACK command, one receipt. The flush
  // is posted behind them, so it adds no waiting.
  acksToSend_.push_back({id, std::move(done)});
  if (acksToSend_.size() > 1) return;
  asio::post(strand_, [self = shared_from_this()] { self->flushAcks(); });
}

void PulsarConsumer::flushAcks() {
  if (acksToSend_.empty()) return;
  auto batch = std::exchange(acksToSend_, {});
  if (state_ != State::ready || !connection_) {
    // The subscription went away meanwhile: wait for the next one like any acknowledgement.
    for (auto& [id, done] : batch) {
      whenReady([self = shared_from_this(), id, done = std::move(done)](const Status& status) {
        if (!status.ok()) return done(status);
        self->ackEntry(id, done);
      });
    }
    return;
  }
  std::vector<MessageId> ids;
  std::vector<Callback<>> callbacks;
  for (auto& [id, done] : batch) {
    ids.push_back(id);
    callbacks.push_back(std::move(done));
  }
  auto requestId = connection_->newRequestId();
  std::string what = ids.size() == 1 ? "ACK " + ids[0].toString()
                                     : "ACK of " + std::to_string(ids.size()) + " messages from " +
                                           ids[0].toString();
  connection_->request(requestId, detail::protocol::ack(consumerId_, ids, requestId),
                       what + " on " + spec_.topic,
                       [callbacks = std::move(callbacks)](Response response) {
                         for (const auto& done : callbacks) done(response.status);
                       });
}

void PulsarConsumer::redeliver(const std::vector<MessageId>& ids) {
  if (spec_.type == SubscriptionType::exclusive || spec_.type == SubscriptionType::failover) {
    // Pulsar redelivers single messages only on Shared and Key_Shared subscriptions.
    return redeliverAll();
  }
  asio::post(strand_, [self = shared_from_this(), ids] {
    if (self->state_ != State::ready || ids.empty()) return;  // a new subscription redelivers
    self->connection_->send(
        self->session_,
        detail::protocol::encodeFrame(detail::protocol::redeliver(self->consumerId_, ids)));
  });
}

void PulsarConsumer::redeliverAll() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->state_ != State::ready) return;
    bool epochs = self->spec_.type == SubscriptionType::exclusive ||
                  self->spec_.type == SubscriptionType::failover;
    // On Exclusive and Failover a new consumer epoch makes the broker's messages in flight
    // recognisable as older than the redelivery.
    std::optional<std::uint64_t> epoch;
    if (epochs) epoch = ++self->epoch_;
    self->connection_->send(
        self->session_,
        detail::protocol::encodeFrame(detail::protocol::redeliver(self->consumerId_, {}, epoch)));
    self->sink_->onReset(self->spec_.topic);
    self->sendFlow(self->permits_.reset());
  });
}

void PulsarConsumer::seek(const MessageId& id, Callback<> done) {
  asio::post(strand_, [self = shared_from_this(), id, done = std::move(done)]() mutable {
    self->whenReady([self, id, done = std::move(done)](const Status& status) mutable {
      if (!status.ok()) return done(status);
      self->seeking_ = true;
      self->closedDuringSeek_ = false;
      auto connection = self->connection_;
      auto consumerId = self->consumerId_;
      auto requestId = connection->newRequestId();
      connection->request(
          requestId, detail::protocol::seek(consumerId, requestId, id),
          "SEEK " + id.toString() + " on " + self->spec_.topic,
          [self, id, connection, consumerId, done = std::move(done)](Response response) mutable {
            asio::post(self->strand_, [self, id, connection, consumerId, done = std::move(done),
                                       response = std::move(response)]() mutable {
              if (self->consumerId_ != consumerId || self->state_ != State::ready) {
                return done(response.status);
              }
              self->seeking_ = false;
              if (!response.status.ok()) {
                if (self->closedDuringSeek_) {
                  self->resubscribeLater(response.status, false);
                }
                return done(response.status);
              }
              self->position_.seek(id);
              self->batches_.clear();
              // The broker disconnects the subscription's consumers on a seek; if it has not
              // closed this one yet, close it ourselves: the next subscription starts there.
              if (!self->closedDuringSeek_) {
                auto closeId = connection->newRequestId();
                connection->request(closeId, detail::protocol::closeConsumer(consumerId, closeId),
                                    "CLOSE_CONSUMER", [](Response) {});
              }
              // What the sink holds is from before the seek (it may have been delivered
              // after the layer above emptied its queue for the seek).
              self->sink_->onReset(self->spec_.topic);
              self->resubscribeLater(Status(errc::connection_lost, "seek to " + id.toString()),
                                     true, true);
              done({});
            });
          });
    });
  });
}

void PulsarConsumer::lastMessageId(Callback<MessageId> done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    self->whenReady([self, done = std::move(done)](const Status& status) mutable {
      if (!status.ok()) return done(status, MessageId());
      auto requestId = self->connection_->newRequestId();
      self->connection_->request(
          requestId, detail::protocol::getLastMessageId(self->consumerId_, requestId),
          "GET_LAST_MESSAGE_ID " + self->spec_.topic,
          [partition = self->partition_, done = std::move(done)](Response response) {
            if (!response.status.ok()) return done(response.status, MessageId());
            const auto& last = response.command.getlastmessageidresponse().last_message_id();
            // An empty topic answers with entry -1 (as an unsigned number).
            if (static_cast<std::int64_t>(last.entryid()) < 0) {
              return done({}, MessageId::earliest());
            }
            done({}, detail::protocol::toMessageId(last, partition));
          });
    });
  });
}

}  // namespace reconsume::detail::pulsar
