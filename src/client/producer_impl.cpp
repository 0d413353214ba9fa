#include "client/producer_impl.hpp"

#include "client/key_hash.hpp"
#include "common/duration.hpp"
#include "common/gather.hpp"
#include "common/outgoing_check.hpp"
#include "common/shared_reading.hpp"
#include "common/topic_name.hpp"

namespace reconsume::detail::client {

ProducerImpl::ProducerImpl(std::shared_ptr<ClientImpl> client, ProducerOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

void ProducerImpl::SendRecord::count(const Status& status,
                                     std::chrono::steady_clock::time_point started,
                                     std::chrono::steady_clock::time_point now) const {
  if (status.ok()) {
    sent->add();
    duration->record(std::chrono::duration<double>(now - started).count());
    return;
  }
  registry
      ->counter(metrics::kSent,
                {{metrics::kDestination, topic},
                 {metrics::kErrorType, std::string(metrics::errorType(status.code))}})
      ->add();
}

Status ProducerImpl::checkBatching(const BatchingOptions& batching) {
  auto bad = [](const std::string& what) {
    return Status(errc::invalid_argument, "ProducerOptions::batching." + what);
  };
  if (batching.delayedWindow.count() < 0) {
    return bad("delayedWindow " + std::to_string(batching.delayedWindow.count()) +
               "ms is negative");
  }
  if (auto why = tooLong(batching.delayedWindow); !why.empty()) return bad("delayedWindow " + why);
  if (!batching.enabled) return {};
  if (batching.maxPublishDelay.count() <= 0) {
    return bad("maxPublishDelay " + std::to_string(batching.maxPublishDelay.count()) +
               "us is not positive (turn batching off with enabled = false)");
  }
  if (batching.maxPublishDelay > kLongestDuration) {
    return bad("maxPublishDelay " + std::to_string(batching.maxPublishDelay.count()) +
               "us is longer than the longest accepted, 36525d (100 years)");
  }
  if (batching.maxMessages == 0) return bad("maxMessages is 0");
  if (batching.maxBytes == 0) return bad("maxBytes is 0");
  return {};
}

void ProducerImpl::create(const std::shared_ptr<ClientImpl>& client, ProducerOptions options,
                          Callback<std::shared_ptr<ProducerImpl>> done) {
  try {
    options.topic = canonicalTopic(options.topic);
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()), nullptr);
  }
  if (options.maxPendingMessages == 0) {
    return done(Status(errc::invalid_argument, "ProducerOptions::maxPendingMessages is 0"),
                nullptr);
  }
  if (options.sendTimeout.count() < 0) {
    return done(Status(errc::invalid_argument, "ProducerOptions::sendTimeout " +
                                                   std::to_string(options.sendTimeout.count()) +
                                                   "ms is negative"),
                nullptr);
  }
  if (auto why = tooLong(options.sendTimeout); !why.empty()) {
    return done(Status(errc::invalid_argument, "ProducerOptions::sendTimeout " + why), nullptr);
  }
  if (auto status = checkBatching(options.batching); !status.ok()) return done(status, nullptr);
  std::shared_ptr<ProducerImpl> producer(new ProducerImpl(client, std::move(options)));
  ProducerSendLimit::Settings limits;
  limits.producer = "producer of " + producer->options_.topic;
  limits.maxMessages = producer->options_.maxPendingMessages;
  limits.maxBytes = producer->options_.maxPendingBytes;
  limits.block = producer->options_.blockIfQueueFull;
  bool sendTimeout = producer->options_.sendTimeout.count() > 0;
  limits.maxWait =
      sendTimeout ? producer->options_.sendTimeout : client->options().operationTimeout;
  limits.maxWaitName = sendTimeout ? "sendTimeout" : "operationTimeout";
  producer->limit_ = std::make_shared<ProducerSendLimit>(client->sendLimits(), std::move(limits));
  const auto& topic = producer->options_.topic;
  producer->record_ = std::make_shared<const SendRecord>(SendRecord{
      client->metrics().counter(metrics::kSent, {{metrics::kDestination, topic}}),
      client->metrics().histogram(metrics::kOperationDuration,
                                  {{metrics::kDestination, topic}, {metrics::kOperation, "send"}}),
      client->metricsPtr(), client->clock(), topic, producer->limit_,
      std::make_unique<SendEpochs>()});
  client->backend().partitions(producer->options_.topic, [producer, done](const Status& status,
                                                                          int count) {
    if (!status.ok()) return done(status, nullptr);
    auto topics = std::vector<std::string>{};
    if (count == 0) {
      topics.push_back(producer->options_.topic);
    } else {
      auto base = TopicName::parse(producer->options_.topic);
      for (int i = 0; i < count; ++i) topics.push_back(base.partitionAt(i).toString());
    }
    auto created = Gather<std::shared_ptr<BackendProducer>>::start(
        topics.size(), [producer, done](const Status& status,
                                        std::vector<std::shared_ptr<BackendProducer>> partitions) {
          producer->partitions_ = std::move(partitions);
          if (!status.ok()) {
            producer->close([](const Status&) {});
            return done(status, nullptr);
          }
          if (auto tracked = producer->client_->track(producer); !tracked.ok()) {
            producer->close([](const Status&) {});
            return done(tracked, nullptr);
          }
          done({}, producer);
        });
    for (std::size_t i = 0; i < topics.size(); ++i) {
      auto options = producer->options_;
      options.topic = topics[i];
      producer->client_->backend().createProducer(options, created->slot(i));
    }
  });
}

BackendProducer* ProducerImpl::route(const OutgoingData& message) {
  auto count = static_cast<int>(partitions_.size());
  if (count == 1) return partitions_.front().get();
  // As the Java client's default router: the partition key decides, hashed as Java's
  // String.hashCode (the ordering key only matters for Key_Shared dispatch); unkeyed messages go
  // round-robin.
  if (message.key) return partitions_[partitionForKey(*message.key, count)].get();
  return partitions_[roundRobin_++ % partitions_.size()].get();
}

void ProducerImpl::send(OutgoingData message, Callback<MessageId> done,
                        const std::shared_ptr<BackendTransaction>& transaction) {
  send(std::move(message), std::move(done), transaction, /*held=*/false);
}

void ProducerImpl::sendWhileHeld(OutgoingData message, Callback<MessageId> done) {
  send(std::move(message), std::move(done), nullptr, /*held=*/true);
}

void ProducerImpl::send(OutgoingData&& message, Callback<MessageId>&& done,
                        const std::shared_ptr<BackendTransaction>& transaction, bool held) {
  // Inside a retry's move, the reading the move began with (common/shared_reading.hpp).
  const auto started = SharedReading::steadyNow(*client_->clock());
  // Counted for flush() from the start: a refusal is a send that failed.
  auto* epoch = record_->epochs->join();
  auto refuse = [&](const Status& status) {
    record_->count(status, started, started);
    done(status, {});
    SendEpochs::complete(epoch, status);  // after: a flush's handler queues after the send's
  };
  if (closed_) return refuse(Status(errc::closed, "producer on " + topic() + " is closed"));
  if (auto check = checkOutgoing(message); !check.ok()) return refuse(check);
  auto bytes = message.contentBytes();  // payload, keys, property names and values
  if (auto room = limit_->acquire(bytes); !room.ok()) return refuse(room);
  // One completion for the room and the metrics, counted as it completes. It holds the record
  // unless the caller holds this producer (sendWhileHeld).
  BackendCallback<MessageId> sent = [kept = held ? nullptr : record_, record = record_.get(), bytes,
                                     started, epoch,
                                     done = std::move(done)](const Status& status, MessageId id) {
    record->limit->release(bytes);  // first: a handler that sends again finds the room
    const auto now = SharedReading::steadyNow(*record->clock);
    record->count(status, started, now);
    // What the receipt starts at once (a retry's acknowledgement) starts at this reading.
    SharedReading reading(*record->clock, now);
    // After the send's own completion, so that a flush's handler queues after the send's —
    // unless the caller holds the producer, who may let go of it (and the epochs) in `done`.
    if (!kept) SendEpochs::complete(epoch, status);
    done(status, id);
    if (kept) SendEpochs::complete(epoch, status);
  };
  auto* partition = route(message);
  if (transaction) return partition->send(std::move(message), transaction, std::move(sent));
  partition->send(std::move(message), std::move(sent));
}

void ProducerImpl::flush(Callback<> done) {
  if (closed_) return done(Status(errc::closed, "producer on " + topic() + " is closed"));
  record_->epochs->flush(std::move(done));
  // Then what waits for a batching delay goes now, its epoch closed: nothing after it joins.
  for (auto& partition : partitions_) {
    if (partition) partition->flush();
  }
}

void ProducerImpl::close(Callback<> done) {
  if (closed_.exchange(true)) return done({});
  if (limit_) limit_->close(Status(errc::closed, "producer on " + topic() + " is closed"));
  auto remaining = std::make_shared<std::atomic<std::size_t>>(partitions_.size() + 1);
  auto finish = [remaining, done](const Status&) {
    if (--*remaining == 0) done({});
  };
  for (auto& partition : partitions_) {
    if (partition)
      partition->close(finish);
    else
      finish({});
  }
  finish({});
}

}  // namespace reconsume::detail::client
