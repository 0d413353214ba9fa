#include "protocol/entry_unpacker.hpp"

#include <vector>

#include "protocol/byte_order.hpp"

namespace reconsume::detail::protocol {
namespace {

using reconsume::detail::MessageData;
using reconsume::detail::Status;

// Every message of a batch needs at least its 4-byte size and a SingleMessageMetadata with the
// required payload_size (2 bytes): a count above payload / 6 cannot be right.
constexpr std::size_t kMinBatchedMessageBytes = 6;

std::string entryName(const proto::CommandMessage& command) {
  const auto& id = command.message_id();
  return "entry " + std::to_string(static_cast<std::int64_t>(id.ledgerid())) + ":" +
         std::to_string(static_cast<std::int64_t>(id.entryid()));
}

// What every message of the entry shares.
MessageData entryData(const proto::CommandMessage& command, const proto::MessageMetadata& meta,
                      const EntryContext& context) {
  MessageData data;
  data.topic = context.topic;
  data.publishTimeMs = meta.publish_time();
  data.producerName = SharedText(meta.producer_name());
  data.sequenceId = meta.sequence_id();
  if (meta.has_replicated_from()) data.replicatedFrom = meta.replicated_from();
  if (meta.has_deliver_at_time() && meta.deliver_at_time() > 0) {
    data.deliverAtMs = static_cast<std::uint64_t>(meta.deliver_at_time());
  }
  data.redeliveryCount = static_cast<int>(command.redelivery_count());
  return data;
}

// Properties in the order the producer wrote them (most write them sorted, which costs nothing
// here); a key given twice keeps its last value, as the Java client reads it.
Properties propertiesOf(const google::protobuf::RepeatedPtrField<proto::KeyValue>& from) {
  if (from.empty()) return {};
  constexpr int kOnStack = 32;
  Properties::Entry onStack[kOnStack];
  std::vector<Properties::Entry> onHeap;
  Properties::Entry* entries = onStack;
  if (from.size() > kOnStack) {
    onHeap.resize(static_cast<std::size_t>(from.size()));
    entries = onHeap.data();
  }
  for (int i = 0; i < from.size(); ++i) {
    entries[i] = {from.Get(i).key(), from.Get(i).value()};
  }
  return Properties::fromPairs({entries, static_cast<std::size_t>(from.size())});
}

bool isPending(const proto::CommandMessage& command, int index) {
  if (command.ack_set_size() == 0) return true;
  const int word = index / 64;
  if (word >= command.ack_set_size()) return false;
  return ((static_cast<std::uint64_t>(command.ack_set(word)) >> (index % 64)) & 1u) != 0;
}

ReceivedMessage single(const proto::CommandMessage& command, const proto::MessageMetadata& meta,
                       Bytes payload, const EntryContext& context) {
  ReceivedMessage message;
  auto& data = message.data;
  data = entryData(command, meta, context);
  const auto& id = command.message_id();
  data.id = MessageId(static_cast<std::int64_t>(id.ledgerid()),
                      static_cast<std::int64_t>(id.entryid()), context.partition);
  data.payload = std::move(payload);
  data.properties = propertiesOf(meta.properties());
  if (meta.has_partition_key()) data.partitionKey = meta.partition_key();
  data.partitionKeyIsBase64 = meta.partition_key_b64_encoded();
  if (meta.has_ordering_key()) data.orderingKey = meta.ordering_key();
  if (meta.event_time() != 0) data.eventTimeMs = meta.event_time();
  message.nullValue = meta.null_value();
  message.nullPartitionKey = meta.null_partition_key();
  return message;
}

Status splitBatch(const proto::CommandMessage& command, const proto::MessageMetadata& meta,
                  const Bytes& bytes, const EntryContext& context, UnpackedEntry& out) {
  std::string_view batch = bytes.view();
  auto what = [&command] { return entryName(command); };
  const std::int32_t count = meta.num_messages_in_batch();
  if (count <= 0 || static_cast<std::size_t>(count) > batch.size() / kMinBatchedMessageBytes) {
    return {errc::protocol_error, what() + " claims " + std::to_string(count) +
                                      " messages in a batch payload of " +
                                      std::to_string(batch.size()) + " bytes"};
  }
  out.batchSize = count;
  out.tracker = std::make_shared<BatchAckTracker>(count);
  out.messages.reserve(static_cast<std::size_t>(count));
  const MessageData shared = entryData(command, meta, context);
  const auto& id = command.message_id();

  // One metadata object for every message of the entry: parsing clears it but keeps its
  // properties' objects and strings for the next message to reuse.
  proto::SingleMessageMetadata single;
  for (int index = 0; index < count; ++index) {
    auto where = [&what, index, count] {
      return what() + " message " + std::to_string(index) + " of " + std::to_string(count);
    };
    if (batch.size() < 4) {
      return {errc::protocol_error, where() + ": batch payload ends before its metadata size"};
    }
    const std::uint32_t size = wire::readU32(batch.data());
    batch.remove_prefix(4);
    if (size > batch.size()) {
      return {errc::protocol_error, where() + ": metadata size " + std::to_string(size) +
                                        " exceeds the " + std::to_string(batch.size()) +
                                        " bytes left"};
    }
    // ParsePartial + IsInitialized: ParseFromArray would also log every failure to stderr.
    if (!single.ParsePartialFromArray(batch.data(), static_cast<int>(size)) ||
        !single.IsInitialized()) {
      return {errc::protocol_error, where() + ": SingleMessageMetadata of " + std::to_string(size) +
                                        " bytes does not parse"};
    }
    batch.remove_prefix(size);
    if (single.payload_size() < 0 ||
        static_cast<std::size_t>(single.payload_size()) > batch.size()) {
      return {errc::protocol_error, where() + ": payload size " +
                                        std::to_string(single.payload_size()) + " exceeds the " +
                                        std::to_string(batch.size()) + " bytes left"};
    }
    const std::string_view payload =
        batch.substr(0, static_cast<std::size_t>(single.payload_size()));
    batch.remove_prefix(payload.size());

    // Not pending: the broker counts it acknowledged (perhaps inside a transaction still open),
    // and this consumer must never acknowledge it in its own name (batch_ack_tracker.hpp).
    // Compacted out: nothing to deliver, so this consumer's to acknowledge.
    if (!isPending(command, index)) {
      out.tracker->acknowledgedElsewhere(index);
      ++out.skipped;
      continue;
    }
    if (single.compacted_out()) {
      out.tracker->acknowledge(index);
      ++out.skipped;
      continue;
    }
    ReceivedMessage message;
    auto& data = message.data;
    data = shared;
    data.id = MessageId(static_cast<std::int64_t>(id.ledgerid()),
                        static_cast<std::int64_t>(id.entryid()), context.partition, index, count);
    data.payload =
        bytes.slice(static_cast<std::size_t>(payload.data() - bytes.data()), payload.size());
    data.properties = propertiesOf(single.properties());
    // Keys belong to each message: the entry's key (set by key-based batching) is not inherited.
    if (single.has_partition_key()) data.partitionKey = single.partition_key();
    data.partitionKeyIsBase64 = single.partition_key_b64_encoded();
    if (single.has_ordering_key()) data.orderingKey = single.ordering_key();
    if (single.event_time() != 0) {
      data.eventTimeMs = single.event_time();
    } else if (meta.event_time() != 0) {
      data.eventTimeMs = meta.event_time();
    }
    if (single.has_sequence_id()) data.sequenceId = single.sequence_id();
    message.nullValue = single.null_value();
    message.nullPartitionKey = single.null_partition_key();
    out.messages.push_back(std::move(message));
  }
  return {};
}

}  // namespace

Status unpackEntry(const proto::CommandMessage& command, const proto::MessageMetadata& metadata,
                   Bytes payload, const EntryContext& context, UnpackedEntry& out) {
  out = UnpackedEntry{};
  auto what = [&command] { return entryName(command); };
  if (metadata.encryption_keys_size() > 0) {
    return {errc::unsupported, what() + " is encrypted (" +
                                   (metadata.has_encryption_algo() ? metadata.encryption_algo()
                                                                   : std::string("no algorithm")) +
                                   "); reconsume does not decrypt messages"};
  }
  if (metadata.has_num_chunks_from_msg() && metadata.num_chunks_from_msg() > 1) {
    return {errc::unsupported, what() + " is chunk " + std::to_string(metadata.chunk_id()) +
                                   " of " + std::to_string(metadata.num_chunks_from_msg()) +
                                   " of message " + metadata.uuid() +
                                   "; reconsume does not reassemble chunked messages"};
  }

  // An uncompressed batch is split straight from the frame's payload, without a copy.
  Bytes body = std::move(payload);
  if (metadata.compression() != proto::NONE) {
    std::string uncompressed;
    if (auto status = decompress(metadata.compression(), body.view(), metadata.uncompressed_size(),
                                 uncompressed, context.maxUncompressedSize);
        !status) {
      if (status.code == errc::protocol_error) {
        out.corruption = metadata.uncompressed_size() > context.maxUncompressedSize
                             ? proto::CommandAck::UncompressedSizeCorruption
                             : proto::CommandAck::DecompressionError;
      }
      return {status.code, what() + ": " + status.message};
    }
    body = Bytes::adopt(std::move(uncompressed));
  }

  Status status;
  if (metadata.has_num_messages_in_batch()) {
    status = splitBatch(command, metadata, body, context, out);
  } else {
    out.messages.push_back(single(command, metadata, std::move(body), context));
  }
  if (!status) {
    out = UnpackedEntry{};
    if (status.code == errc::protocol_error)
      out.corruption = proto::CommandAck::BatchDeSerializeError;
  }
  return status;
}

Status unpackEntry(const proto::CommandMessage& command, const proto::MessageMetadata& metadata,
                   std::string_view payload, const EntryContext& context, UnpackedEntry& out) {
  return unpackEntry(command, metadata, Bytes::copy(payload), context, out);
}

namespace {

Status notAnEntry(const Frame& frame, UnpackedEntry& out) {
  out = UnpackedEntry{};
  return {errc::protocol_error, proto::BaseCommand::Type_Name(frame.command.type()) +
                                    " frame is not a MESSAGE with a payload; it carries no entry"};
}

bool isEntry(const Frame& frame) {
  return frame.command.type() == proto::BaseCommand::MESSAGE && frame.metadata;
}

}  // namespace

Status unpackEntry(const Frame& frame, const EntryContext& context, UnpackedEntry& out) {
  if (!isEntry(frame)) return notAnEntry(frame, out);
  return unpackEntry(frame.command.message(), *frame.metadata, frame.payload, context, out);
}

Status unpackEntry(Frame&& frame, const EntryContext& context, UnpackedEntry& out) {
  if (!isEntry(frame)) return notAnEntry(frame, out);
  return unpackEntry(frame.command.message(), *frame.metadata, std::move(frame.payload), context,
                     out);
}

}  // namespace reconsume::detail::protocol
