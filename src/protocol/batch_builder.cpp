#include "protocol/batch_builder.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <utility>

#include "common/large_buffers.hpp"
#include "protocol/byte_order.hpp"
#include "protocol/compression.hpp"
#include "protocol/frame_encoder.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

// Tracks whether every message so far had the same value (absent counts as a value).
void share(std::optional<std::string>& shared, bool& mixed, bool first,
           const std::optional<std::string>& value) {
  if (first) {
    shared = value;
  } else if (shared != value) {
    mixed = true;
  }
}

}  // namespace

void BatchBuilder::add(const OutgoingData& message, std::uint64_t sequenceId) {
  if (!canBatch(message)) {
    throw Error(errc::invalid_argument, "message with sequence id " + std::to_string(sequenceId) +
                                            " has a delivery delay and cannot go into a batch");
  }
  auto metadata = singleMetadata(message);
  metadata.set_sequence_id(sequenceId);
  add(std::move(metadata), message.payload.view());
}

proto::SingleMessageMetadata BatchBuilder::singleMetadata(const OutgoingData& message) {
  proto::SingleMessageMetadata metadata;
  fillMessageFields(message, metadata);
  return metadata;
}

namespace {

using google::protobuf::io::CodedOutputStream;

// SingleMessageMetadata's fields (proto/pulsar_common.proto) and KeyValue's.
constexpr int kProperties = 1, kPartitionKey = 2, kPayloadSize = 3, kEventTime = 5,
              kPartitionKeyB64 = 6, kOrderingKey = 7;
constexpr int kKey = 1, kValue = 2;

// Protobuf's wire types (the low three bits of a tag).
enum WireType : std::uint32_t { kVarint = 0, kDelimited = 2 };

constexpr std::uint32_t tag(int field, WireType type) {
  return static_cast<std::uint32_t>(field) << 3 | type;
}

std::size_t delimitedSize(std::size_t size) {
  return 1 + CodedOutputStream::VarintSize32(static_cast<std::uint32_t>(size)) + size;
}

std::uint8_t* writeDelimited(int field, std::string_view bytes, std::uint8_t* at) {
  at = CodedOutputStream::WriteTagToArray(tag(field, kDelimited), at);
  at = CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(bytes.size()), at);
  std::memcpy(at, bytes.data(), bytes.size());
  return at + bytes.size();
}

std::uint8_t* writeVarint(int field, std::uint64_t value, std::uint8_t* at) {
  at = CodedOutputStream::WriteTagToArray(tag(field, kVarint), at);
  return CodedOutputStream::WriteVarint64ToArray(value, at);
}

}  // namespace

BatchBuilder::SerializedMetadata BatchBuilder::serializedMetadata(const OutgoingData& message) {
  // Every batched send comes here, on the sender's thread. Written field by field in the order
  // protobuf serializes them (by field number), with protobuf's own wire-format writers: the
  // same bytes as singleMetadata(message) with payload_size set, serialized (a unit test holds
  // it to that), for one allocation instead of a message with a KeyValue per property. One pass
  // over the properties: the string is sized for the longest varints, then cut to what was
  // written (a second pass to size it exactly cost a third of the function).
  constexpr std::size_t kVarint32 = 5, kVarint64 = 10;
  constexpr std::size_t kPerProperty =
      3 * (1 + kVarint32);  // the pair's tag and length, two fields'
  std::uint64_t eventTimeMs = 0;
  if (message.eventTime) {
    eventTimeMs = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(message.eventTime->time_since_epoch())
            .count());
  }
  const auto payloadSize = static_cast<std::int32_t>(message.payload.size());
  const std::size_t most = message.properties.contentBytes() +
                           kPerProperty * message.properties.size() +
                           (message.key ? 1 + kVarint32 + message.key->size() + 2 : 0) + 1 +
                           kVarint64 + (message.eventTime ? 1 + kVarint64 : 0) +
                           (message.orderingKey ? 1 + kVarint32 + message.orderingKey->size() : 0);

  SerializedMetadata out(most, '\0');
  auto* const begin = reinterpret_cast<std::uint8_t*>(out.data());
  auto* at = begin;
  for (const auto [key, value] : message.properties) {
    at = CodedOutputStream::WriteTagToArray(tag(kProperties, kDelimited), at);
    at = CodedOutputStream::WriteVarint32ToArray(
        static_cast<std::uint32_t>(delimitedSize(key.size()) + delimitedSize(value.size())), at);
    at = writeDelimited(kKey, key, at);
    at = writeDelimited(kValue, value, at);
  }
  if (message.key) at = writeDelimited(kPartitionKey, *message.key, at);
  at = CodedOutputStream::WriteTagToArray(tag(kPayloadSize, kVarint), at);
  at = CodedOutputStream::WriteVarint32SignExtendedToArray(payloadSize, at);
  if (message.eventTime) at = writeVarint(kEventTime, eventTimeMs, at);
  if (message.key && message.keyIsBase64) at = writeVarint(kPartitionKeyB64, 1, at);
  if (message.orderingKey) at = writeDelimited(kOrderingKey, *message.orderingKey, at);
  out.resize(static_cast<std::size_t>(at - begin));
  return out;
}

void BatchBuilder::noteKeys(const std::optional<std::string>& key, bool keyIsBase64,
                            const std::optional<std::string>& orderingKey) {
  const bool first = count_ == 0;
  share(sharedKey_, mixedKeys_, first, key);
  share(sharedOrderingKey_, mixedOrderingKeys_, first, orderingKey);
  if (first) sharedKeyIsBase64_ = keyIsBase64;
  if (keyIsBase64 != sharedKeyIsBase64_) mixedKeys_ = true;
}

void BatchBuilder::noteSequenceId(std::uint64_t sequenceId) {
  if (!firstSequenceId_) firstSequenceId_ = sequenceId;
  lastSequenceId_ = sequenceId;
}

void BatchBuilder::add(proto::SingleMessageMetadata metadata, std::string_view payload) {
  metadata.set_payload_size(static_cast<std::int32_t>(payload.size()));
  noteKeys(metadata.has_partition_key() ? std::optional(metadata.partition_key()) : std::nullopt,
           metadata.partition_key_b64_encoded(),
           metadata.has_ordering_key() ? std::optional(metadata.ordering_key()) : std::nullopt);
  if (metadata.has_sequence_id()) noteSequenceId(metadata.sequence_id());

  const std::size_t size = metadata.ByteSizeLong();
  startBatch();
  wire::appendU32(batch_, static_cast<std::uint32_t>(size));
  const std::size_t at = batch_.size();
  batch_.resize(at + size);
  metadata.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(batch_.data() + at));
  batch_.append(payload);
  ++count_;
}

void BatchBuilder::addSerialized(std::string_view metadata, std::uint64_t sequenceId,
                                 std::string_view payload, const Keys& keys) {
  static const std::optional<std::string> none;
  noteKeys(keys.key ? *keys.key : none, keys.keyIsBase64,
           keys.orderingKey ? *keys.orderingKey : none);
  noteSequenceId(sequenceId);
  // sequence_id (field 8, varint) after the other fields: protobuf reads fields in any order.
  char field[11];
  std::size_t length = 0;
  field[length++] = static_cast<char>(8 << 3);
  for (auto value = sequenceId;; value >>= 7) {
    if (value < 0x80) {
      field[length++] = static_cast<char>(value);
      break;
    }
    field[length++] = static_cast<char>((value & 0x7f) | 0x80);
  }
  startBatch();
  wire::appendU32(batch_, static_cast<std::uint32_t>(metadata.size() + length));
  batch_.append(metadata);
  batch_.append(field, length);
  batch_.append(payload);
  ++count_;
}

proto::MessageMetadata BatchBuilder::entryMetadata(const SendContext& context,
                                                   std::optional<std::uint64_t> deliverAtMs) const {
  proto::MessageMetadata metadata;
  metadata.set_producer_name(context.producerName);
  metadata.set_sequence_id(firstSequenceId_.value_or(context.sequenceId));
  metadata.set_publish_time(context.publishTimeMs);
  metadata.set_num_messages_in_batch(static_cast<std::int32_t>(count_));
  metadata.set_highest_sequence_id(
      lastSequenceId_.value_or(metadata.sequence_id() + (count_ > 0 ? count_ - 1 : 0)));
  if (!mixedKeys_ && sharedKey_) {
    metadata.set_partition_key(*sharedKey_);
    if (sharedKeyIsBase64_) metadata.set_partition_key_b64_encoded(true);
  }
  if (!mixedOrderingKeys_ && sharedOrderingKey_) metadata.set_ordering_key(*sharedOrderingKey_);
  if (deliverAtMs) metadata.set_deliver_at_time(static_cast<std::int64_t>(*deliverAtMs));
  metadata.set_uncompressed_size(static_cast<std::uint32_t>(bytes()));
  if (context.compression != proto::NONE) metadata.set_compression(context.compression);
  return metadata;
}

EncodedMessage BatchBuilder::finish(const SendContext& context,
                                    std::optional<std::uint64_t> deliverAtMs) {
  EncodedMessage encoded;
  encoded.metadata = entryMetadata(context, deliverAtMs);
  startBatch();
  const std::string_view batch = std::string_view(batch_).substr(headroom_);
  if (context.compression != proto::NONE) {
    encoded.payload = compress(context.compression, batch);
  } else if (headroom_ > 0) {
    encoded.payload = std::string(batch);
  } else {
    encoded.payload = std::move(batch_);
  }
  reset();
  return encoded;
}

void BatchBuilder::reserve(std::size_t bytes) {
  if (batch_.empty() && headroom_ + bytes >= kSmallestKept) {
    LargeBuffers::shared().give(std::move(batch_));
    batch_ = LargeBuffers::shared().take(headroom_ + bytes);
  }
  startBatch();
  batch_.reserve(batch_.size() + bytes);
}

void BatchBuilder::reset() {
  LargeBuffers::shared().give(
      std::move(batch_));  // when finish() compressed it: the payload is a copy
  *this = BatchBuilder(headroom_);
}

Bytes BatchBuilder::finishFrame(std::uint64_t producerId, const SendContext& context,
                                std::optional<std::uint64_t> deliverAtMs) {
  if (context.compression != proto::NONE) {
    return Bytes::adopt(encodeSend(producerId, finish(context, deliverAtMs)));
  }
  startBatch();
  auto metadata = entryMetadata(context, deliverAtMs);
  auto frame =
      encodePayloadFrameInPlace(std::move(batch_), headroom_, send(producerId, metadata), metadata);
  reset();
  return frame;
}

}  // namespace reconsume::detail::protocol
