#include "client/producer_impl.hpp"

#include "common/topic_name.hpp"
#include "protocol/key_hash.hpp"

namespace reconsume::detail {

Status checkOutgoing(const OutgoingMessage& message) {
  if (message.deliverAfter && message.deliverAt) {
    return Status(errc::invalid_argument, "a message sets both deliverAfter (" +
                                              std::to_string(message.deliverAfter->count()) +
                                              "ms) and deliverAt; set at most one");
  }
  if (message.deliverAfter && message.deliverAfter->count() < 0) {
    return Status(
        errc::invalid_argument,
        "deliverAfter " + std::to_string(message.deliverAfter->count()) + "ms is negative");
  }
  return {};
}

ProducerImpl::ProducerImpl(std::shared_ptr<ClientImpl> client, ProducerOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

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
  std::shared_ptr<ProducerImpl> producer(new ProducerImpl(client, std::move(options)));
  client->backend().partitions(
      producer->options_.topic, [producer, done](const Status& status, int count) {
        if (!status.ok()) return done(status, nullptr);
        auto topics = std::vector<std::string>{};
        if (count == 0) {
          topics.push_back(producer->options_.topic);
        } else {
          auto base = TopicName::parse(producer->options_.topic);
          for (int i = 0; i < count; ++i) topics.push_back(base.partitionAt(i).toString());
        }
        producer->partitions_.resize(topics.size());
        struct Pending {
          std::mutex mutex;
          std::size_t remaining;
          Status failure;
        };
        auto pending = std::make_shared<Pending>();
        pending->remaining = topics.size();
        for (std::size_t i = 0; i < topics.size(); ++i) {
          auto options = producer->options_;
          options.topic = topics[i];
          producer->client_->backend().createProducer(
              options, [producer, pending, i, done](const Status& status,
                                                    std::shared_ptr<BackendProducer> created) {
                bool last;
                {
                  std::lock_guard lock(pending->mutex);
                  if (status.ok()) {
                    producer->partitions_[i] = std::move(created);
                  } else if (pending->failure.ok()) {
                    pending->failure = status;
                  }
                  last = --pending->remaining == 0;
                }
                if (!last) return;
                if (!pending->failure.ok()) {
                  producer->close([](const Status&) {});
                  return done(pending->failure, nullptr);
                }
                if (auto tracked = producer->client_->track(producer); !tracked.ok()) {
                  producer->close([](const Status&) {});
                  return done(tracked, nullptr);
                }
                done({}, producer);
              });
        }
      });
}

BackendProducer* ProducerImpl::route(const OutgoingMessage& message) {
  auto count = static_cast<int>(partitions_.size());
  if (count == 1) return partitions_.front().get();
  // As the Java client's default router: the partition key decides, hashed as Java's
  // String.hashCode (the ordering key only matters for Key_Shared dispatch); unkeyed messages go
  // round-robin.
  if (message.key) return partitions_[protocol::partitionForKey(*message.key, count)].get();
  return partitions_[roundRobin_++ % partitions_.size()].get();
}

void ProducerImpl::send(const OutgoingMessage& message, Callback<MessageId> done) {
  if (closed_) return done(Status(errc::closed, "producer on " + topic() + " is closed"), {});
  if (auto check = checkOutgoing(message); !check.ok()) return done(check, {});
  route(message)->send(message, std::move(done));
}

void ProducerImpl::close(Callback<> done) {
  if (closed_.exchange(true)) return done({});
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

}  // namespace reconsume::detail
