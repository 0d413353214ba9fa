#include "protocol/outgoing.hpp"

#include <chrono>

#include "protocol/compression.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/wire_size.hpp"

namespace reconsume::detail::protocol {

EncodedMessage encodeMessage(const OutgoingData& message, const SendContext& context) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;

  EncodedMessage encoded;
  auto& metadata = encoded.metadata;
  metadata.set_producer_name(context.producerName);
  metadata.set_sequence_id(context.sequenceId);
  metadata.set_publish_time(context.publishTimeMs);
  fillMessageFields(message, metadata);
  if (message.deliverAt) {
    metadata.set_deliver_at_time(
        duration_cast<milliseconds>(message.deliverAt->time_since_epoch()).count());
  } else if (message.deliverAfter) {
    metadata.set_deliver_at_time(static_cast<std::int64_t>(context.publishTimeMs) +
                                 message.deliverAfter->count());
  }
  if (context.compression != proto::NONE) {
    metadata.set_compression(context.compression);
    metadata.set_uncompressed_size(static_cast<std::uint32_t>(message.payload.size()));
    encoded.payload = compress(context.compression, message.payload.view());
  } else {
    encoded.payload = message.payload.toString();
  }
  return encoded;
}

reconsume::detail::Status checkMessageSize(const EncodedMessage& message,
                                           std::uint32_t maxMessageSize) {
  const std::size_t size = message.size();
  if (size <= maxMessageSize) return {};
  return {errc::too_large,
          "message of " + std::to_string(size) + " bytes (payload " +
              std::to_string(message.payload.size()) + ", metadata and properties " +
              std::to_string(size - message.payload.size()) +
              ") exceeds the broker's maximum message size " + std::to_string(maxMessageSize)};
}

proto::BaseCommand send(std::uint64_t producerId, const proto::MessageMetadata& metadata) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEND);
  auto& send = *command.mutable_send();
  send.set_producer_id(producerId);
  send.set_sequence_id(metadata.sequence_id());
  if (metadata.has_num_messages_in_batch()) {
    send.set_num_messages(metadata.num_messages_in_batch());
  }
  if (metadata.has_highest_sequence_id()) {
    send.set_highest_sequence_id(metadata.highest_sequence_id());
  }
  if (metadata.has_txnid_most_bits() && metadata.has_txnid_least_bits()) {
    send.set_txnid_most_bits(metadata.txnid_most_bits());
    send.set_txnid_least_bits(metadata.txnid_least_bits());
  }
  return command;
}

void appendSend(std::string& out, std::uint64_t producerId, const EncodedMessage& message) {
  appendPayloadFrame(out, send(producerId, message.metadata), message.metadata, message.payload);
}

std::string encodeSend(std::uint64_t producerId, const EncodedMessage& message) {
  std::string out;
  appendSend(out, producerId, message);
  return out;
}

void appendSend(std::string& out, std::uint64_t producerId, const EncodedMessage& message,
                const std::optional<TxnId>& txn) {
  if (!txn) return appendSend(out, producerId, message);
  // A copy: the caller may send the same message again later, in another transaction or none.
  proto::MessageMetadata metadata = message.metadata;
  metadata.set_txnid_most_bits(txn->mostBits);
  metadata.set_txnid_least_bits(txn->leastBits);
  appendPayloadFrame(out, send(producerId, metadata), metadata, message.payload);
}

std::string encodeSend(std::uint64_t producerId, const EncodedMessage& message,
                       const std::optional<TxnId>& txn) {
  std::string out;
  appendSend(out, producerId, message, txn);
  return out;
}

std::size_t wireSize(const OutgoingData& message, const std::string& producerName,
                     std::uint64_t sequenceId, std::uint64_t publishTimeMs,
                     Compression compression) {
  return encodeMessage(message, {producerName, sequenceId, publishTimeMs, toProto(compression)})
      .size();
}

std::size_t wireSizeAtMost(const OutgoingData& message, const std::string& producerName,
                           Compression compression) {
  // A field's tag and length take at most 1 + 5 bytes; a property is a KeyValue of two fields.
  constexpr std::size_t kField = 6, kProperty = 3 * kField;
  // Every fixed field of MessageMetadata with its tag: producer name's framing, sequence id,
  // publish time, event time, delivery time, compression, uncompressed size, key flags,
  // transaction ids; generously.
  constexpr std::size_t kFixedFields = 256;
  const std::size_t payload = message.payload.size();
  const std::size_t codecGrowth = compression == Compression::none ? 0 : payload / 6 + 64;
  return message.contentBytes() + codecGrowth + kProperty * message.properties.size() + 2 * kField +
         kField + producerName.size() + kFixedFields;
}

}  // namespace reconsume::detail::protocol
