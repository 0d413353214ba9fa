#include "pulsar/batch_container.hpp"

#include <algorithm>
#include <memory>

#include "PulsarApi.pb.h"
#include "common/shared_reading.hpp"
#include "protocol/batch_builder.hpp"
#include "protocol/compression.hpp"

namespace reconsume::detail::pulsar {

BatchedMessage::BatchedMessage(OutgoingData&& message, std::optional<std::uint64_t> deliverAtMs)
    : metadata(protocol::BatchBuilder::serializedMetadata(message)),
      payload(std::move(message.payload)),
      key(std::move(message.key)),
      orderingKey(std::move(message.orderingKey)),
      keyIsBase64(message.keyIsBase64),
      deliverAtMs(deliverAtMs) {}

std::string BatchedMessage::batchKey() const {
  if (key) return (keyIsBase64 ? "b:" : "k:") + *key;
  if (orderingKey) return "o:" + *orderingKey;
  return {};
}

std::string BatchContainer::keyOf(const BatchedMessage& message) const {
  return options_.keyBased ? message.batchKey() : std::string();
}

bool BatchContainer::fits(const BatchedMessage& message) const {
  auto found = open_.find(keyOf(message));
  return found == open_.end() || joins(found->second, message);
}

bool BatchContainer::joins(const Batch& batch, const BatchedMessage& message,
                           std::size_t roomBytes) const {
  if (batch.messages.size() >= options_.maxMessages) return false;
  if (batch.bytes + message.bytes() > std::min(options_.maxBytes, roomBytes)) return false;
  if (batch.delayed != message.deliverAtMs.has_value()) return false;
  if (!batch.delayed) return true;
  auto at = *message.deliverAtMs;
  auto window = static_cast<std::uint64_t>(options_.delayedWindow.count());
  return std::max(batch.latestMs, at) - std::min(batch.earliestMs, at) <= window;
}

void BatchContainer::open(Batch& batch, const BatchedMessage& message, TimePoint now) {
  const auto room = std::min(lastBatchSize_, options_.maxMessages);
  batch.messages.reserve(room);
  batch.dones.reserve(room);
  batch.bytes = 0;
  batch.age = opened_++;
  batch.due = now + options_.maxPublishDelay;
  batch.delayed = message.deliverAtMs.has_value();
  batch.earliestMs = batch.latestMs = message.deliverAtMs.value_or(0);
}

BatchContainer::Taken BatchContainer::add(BatchedMessage&& message,
                                          BackendCallback<MessageId>&& done, const ReadNow& now,
                                          std::size_t roomBytes) {
  Taken taken;
  // Not key-based: the one open batch, when there is one, without making and hashing its key.
  auto [found, opened] = unkeyed_ ? std::pair{*unkeyed_, false} : open_.try_emplace(keyOf(message));
  if (!options_.keyBased) unkeyed_ = found;
  auto& batch = found->second;
  if (!opened && !joins(batch, message, roomBytes)) {
    messages_ -= batch.messages.size();
    taken.closed = toEntry(std::move(batch));
    opened = true;  // the same slot, a new batch
  }
  if (opened) {
    open(batch, message, now());
  } else if (message.deliverAtMs) {
    batch.earliestMs = std::min(batch.earliestMs, *message.deliverAtMs);
    batch.latestMs = std::max(batch.latestMs, *message.deliverAtMs);
  }
  batch.bytes += message.bytes();
  batch.messages.push_back(std::move(message));
  batch.dones.push_back(std::move(done));
  ++messages_;
  if (batch.messages.size() >= options_.maxMessages ||
      batch.bytes >= std::min(options_.maxBytes, roomBytes)) {
    messages_ -= batch.messages.size();
    taken.full = toEntry(std::move(batch));
    open_.erase(found);
    unkeyed_.reset();
  }
  return taken;
}

OutgoingEntry BatchContainer::toEntry(Batch&& batch) {
  lastBatchSize_ = std::max<std::size_t>(batch.messages.size(), 1);
  OutgoingEntry entry;
  if (batch.delayed) entry.deliverAtMs = batch.latestMs;
  entry.batch = std::move(batch.messages);
  entry.dones = std::move(batch.dones);
  batch.messages.clear();  // moved from: valid but unspecified, and reused by open()
  batch.dones.clear();
  return entry;
}

template <typename Take>
std::vector<OutgoingEntry> BatchContainer::takeWhere(Take take) {
  std::vector<decltype(open_)::iterator> byAge;
  byAge.reserve(open_.size());
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (take(it->second)) byAge.push_back(it);
  }
  std::sort(byAge.begin(), byAge.end(),
            [](const auto& a, const auto& b) { return a->second.age < b->second.age; });
  std::vector<OutgoingEntry> entries;
  entries.reserve(byAge.size());
  for (auto& it : byAge) {
    messages_ -= it->second.messages.size();
    entries.push_back(toEntry(std::move(it->second)));
    open_.erase(it);  // erasing one element leaves the other iterators valid
  }
  if (open_.empty()) unkeyed_.reset();  // not key-based, the map holds one batch at most
  return entries;
}

std::vector<OutgoingEntry> BatchContainer::takeAll() {
  return takeWhere([](const Batch&) { return true; });
}

std::optional<BatchContainer::TimePoint> BatchContainer::nextDue() const {
  std::optional<TimePoint> next;
  for (const auto& [key, batch] : open_) {
    if (!next || batch.due < *next) next = batch.due;
  }
  return next;
}

std::vector<OutgoingEntry> BatchContainer::takeDue(TimePoint now) {
  return takeWhere([now](const Batch& batch) { return batch.due <= now; });
}

BackendCallback<MessageId> BatchContainer::completion(OutgoingEntry& entry,
                                                      std::int32_t partition) {
  if (entry.dones.size() == 1) {
    auto only = std::move(entry.dones.front());
    entry.dones.clear();
    return only;
  }
  auto shared = std::make_shared<std::vector<BackendCallback<MessageId>>>(std::move(entry.dones));
  entry.dones.clear();
  return [shared, partition](const Status& status, MessageId id) {
    // One receipt, one instant: the messages' completions share one reading of the clock.
    SharedReading reading;
    const auto size = static_cast<std::int32_t>(shared->size());
    for (std::int32_t i = 0; i < size; ++i) {
      auto& done = (*shared)[static_cast<std::size_t>(i)];
      if (!status.ok()) {
        done(status, MessageId());
      } else {
        done(status, MessageId(id.ledger(), id.entry(), partition, i, size));
      }
    }
  };
}

namespace {

// A batch of one goes out as a plain message, its metadata lifted from the batch form.
protocol::EncodedMessage plainMessage(BatchedMessage& message, std::uint64_t sequenceId,
                                      std::optional<std::uint64_t> deliverAtMs,
                                      const protocol::SendContext& context) {
  protocol::EncodedMessage encoded;
  auto& metadata = encoded.metadata;
  proto::SingleMessageMetadata single;
  // Written by this process: it parses.
  single.ParseFromArray(message.metadata.data(), static_cast<int>(message.metadata.size()));
  metadata.set_producer_name(context.producerName);
  metadata.set_sequence_id(sequenceId);
  metadata.set_publish_time(context.publishTimeMs);
  metadata.mutable_properties()->Swap(single.mutable_properties());
  if (single.has_partition_key()) metadata.set_partition_key(single.partition_key());
  if (single.partition_key_b64_encoded()) metadata.set_partition_key_b64_encoded(true);
  if (single.has_ordering_key()) metadata.set_ordering_key(single.ordering_key());
  if (single.has_event_time()) metadata.set_event_time(single.event_time());
  if (deliverAtMs) metadata.set_deliver_at_time(static_cast<std::int64_t>(*deliverAtMs));
  metadata.set_uncompressed_size(static_cast<std::uint32_t>(message.payload.size()));
  if (context.compression != proto::NONE) {
    metadata.set_compression(context.compression);
    encoded.payload = protocol::compress(context.compression, message.payload.view());
  } else {
    encoded.payload = message.payload.toString();
  }
  return encoded;
}

}  // namespace

protocol::EncodedMessage BatchContainer::buildEntry(OutgoingEntry& entry,
                                                    std::uint64_t firstSequenceId,
                                                    const protocol::SendContext& context) {
  if (entry.batch.size() == 1) {
    return plainMessage(entry.batch.front(), firstSequenceId, entry.deliverAtMs, context);
  }
  protocol::BatchBuilder builder;
  fill(builder, entry, firstSequenceId);
  return builder.finish(context, entry.deliverAtMs);
}

Bytes BatchContainer::buildFrame(OutgoingEntry& entry, std::uint64_t firstSequenceId,
                                 const protocol::SendContext& context, std::uint64_t producerId) {
  if (entry.batch.size() == 1) {
    return Bytes::adopt(protocol::encodeSend(
        producerId,
        plainMessage(entry.batch.front(), firstSequenceId, entry.deliverAtMs, context)));
  }
  protocol::BatchBuilder builder(protocol::BatchBuilder::kFrameHeadroom);
  fill(builder, entry, firstSequenceId);
  return builder.finishFrame(producerId, context, entry.deliverAtMs);
}

void BatchContainer::fill(protocol::BatchBuilder& builder, const OutgoingEntry& entry,
                          std::uint64_t firstSequenceId) {
  std::size_t bytes = 0;
  for (const auto& message : entry.batch) bytes += message.bytes();
  builder.reserve(bytes);
  auto sequenceId = firstSequenceId;
  for (const auto& message : entry.batch) {
    builder.addSerialized(message.metadata, sequenceId++, message.payload.view(),
                          {&message.key, message.keyIsBase64, &message.orderingKey});
  }
}

}  // namespace reconsume::detail::pulsar
