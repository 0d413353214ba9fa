// Turning an outgoing message (common/outgoing_data.hpp) into what a SEND frame carries:
// MessageMetadata plus the payload, compressed. Batches of several messages are built with
// BatchBuilder (batch_builder.hpp) and go out through the same send functions.
//
// Nothing here reads a clock: the publish time comes from the caller.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "PulsarApi.pb.h"
#include "common/outgoing_data.hpp"
#include "common/status.hpp"
#include "common/txn_id.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::protocol {

struct SendContext {
  std::string producerName;  // as PRODUCER_SUCCESS reported it
  std::uint64_t sequenceId{0};
  std::uint64_t publishTimeMs{0};  // epoch milliseconds, from the caller's clock
  proto::CompressionType compression{proto::NONE};
};

// A message (or a batch) ready for a SEND frame: the payload is compressed as
// metadata.compression() says, and metadata.uncompressed_size() gives its size before that.
struct EncodedMessage {
  proto::MessageMetadata metadata;
  std::string payload;

  // Bytes counted against the broker's maximum message size: metadata plus payload.
  std::size_t size() const { return metadata.ByteSizeLong() + payload.size(); }
};

// The fields a message's own metadata carries in either form — MessageMetadata for a message
// sent alone, SingleMessageMetadata inside a batch (their setters share names): properties,
// partition key and its base64 flag, ordering key, event time.
template <typename Metadata>
void fillMessageFields(const OutgoingData& message, Metadata& metadata) {
  for (const auto [key, value] : message.properties) {
    auto& property = *metadata.add_properties();
    property.set_key(key.data(), key.size());
    property.set_value(value.data(), value.size());
  }
  if (message.key) {
    metadata.set_partition_key(*message.key);
    if (message.keyIsBase64) metadata.set_partition_key_b64_encoded(true);
  }
  if (message.orderingKey) metadata.set_ordering_key(*message.orderingKey);
  if (message.eventTime) {
    metadata.set_event_time(static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(message.eventTime->time_since_epoch())
            .count()));
  }
}

// Metadata from the message: properties, partition key (and its base64 flag), ordering key, event
// time, deliver_at_time, plus producer name, sequence id, publish time and compression from the
// context. deliver_at_time is deliverAt when set, else publishTimeMs + deliverAfter. The caller
// validates the message first (a negative deliverAfter, or both deliverAfter and deliverAt, are
// the producer's invalid_argument errors).
EncodedMessage encodeMessage(const OutgoingData& message, const SendContext& context);

// errc::too_large when `message` exceeds `maxMessageSize` (the broker's, from CONNECTED), naming
// both sizes.
reconsume::detail::Status checkMessageSize(const EncodedMessage& message,
                                           std::uint32_t maxMessageSize);

// The SEND command: sequence id from the metadata; for a batch also num_messages and
// highest_sequence_id; for a message of a transaction (metadata with txnid_most_bits and
// txnid_least_bits) also the transaction's id, as the Java client repeats it there.
proto::BaseCommand send(std::uint64_t producerId, const proto::MessageMetadata& metadata);

// The complete SEND frame.
std::string encodeSend(std::uint64_t producerId, const EncodedMessage& message);
void appendSend(std::string& out, std::uint64_t producerId, const EncodedMessage& message);

// With `txn`, the message is published in that transaction: its metadata and the command both
// carry the id. Brokers file the message by the metadata's id (the transaction buffer), so an id
// in the command alone would publish it outside the transaction. Without `txn`, the same as the
// functions above. Register the partition first (addPartitionToTxn, transaction_commands.hpp).
std::string encodeSend(std::uint64_t producerId, const EncodedMessage& message,
                       const std::optional<TxnId>& txn);
void appendSend(std::string& out, std::uint64_t producerId, const EncodedMessage& message,
                const std::optional<TxnId>& txn);

}  // namespace reconsume::detail::protocol
