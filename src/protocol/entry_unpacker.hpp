// Turns one received entry (a MESSAGE frame) into the messages it carries.
//
// A plain entry is one message. A batch entry (MessageMetadata has num_messages_in_batch set,
// which Java producers do by default) holds, after decompression, a sequence of
// [u32 size][SingleMessageMetadata][payload]; each becomes a message with its own properties,
// partition key (and base64 flag), ordering key, event time, sequence id and null flags, and the
// id (ledger, entry, partition, batch index, batch size). Messages are left out when
// - CommandMessage.ack_set has their bit clear: acknowledged before (batch-index acknowledgement);
// - SingleMessageMetadata.compacted_out is set: removed by topic compaction.
//
// Entries reconsume cannot turn into messages give a Status and no messages:
// errc::protocol_error for a corrupt payload (decompression, batch framing, sizes), with
// UnpackedEntry::corruption saying which (what the consumer acknowledges it with, as the Java
// client does), and errc::unsupported for encrypted entries and chunks of a chunked message.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "PulsarApi.pb.h"
#include "common/bytes.hpp"
#include "common/message_data.hpp"
#include "common/shared_text.hpp"
#include "common/status.hpp"
#include "protocol/batch_ack_tracker.hpp"
#include "protocol/compression.hpp"
#include "protocol/frame.hpp"

namespace reconsume::detail::protocol {

struct EntryContext {
  SharedText topic;            // the consumer's topic, with -partition-N for a partition
  std::int32_t partition{-1};  // its partition index, -1 when not partitioned
  std::uint32_t maxUncompressedSize{kDefaultMaxUncompressedSize};
};

// One message of an entry. `data.backendState` is left empty for the caller.
struct ReceivedMessage {
  reconsume::detail::MessageData data;
  bool nullValue{false};         // the producer sent a null value (payload is empty)
  bool nullPartitionKey{false};  // the producer set the key explicitly to null
};

struct UnpackedEntry {
  std::vector<ReceivedMessage> messages;
  // Batch entries only (batchSize > 0): which indexes count as acknowledged. Indexes not
  // delivered (acknowledged before, compacted out) are marked acknowledged already, so the
  // entry is complete once every delivered message is acknowledged.
  int batchSize{0};
  std::shared_ptr<BatchAckTracker> tracker;
  int skipped{0};  // messages of the batch not delivered (flow permits the broker counted)
  // A corrupt payload: UncompressedSizeCorruption (a declared size above the limit),
  // DecompressionError, BatchDeSerializeError.
  std::optional<proto::CommandAck::ValidationError> corruption;
};

// The messages' payloads are views into `payload` (or into its decompressed form), which they
// share: no copy per message.
reconsume::detail::Status unpackEntry(const proto::CommandMessage& command,
                                      const proto::MessageMetadata& metadata, Bytes payload,
                                      const EntryContext& context, UnpackedEntry& out);
// The same from bytes the messages copy.
reconsume::detail::Status unpackEntry(const proto::CommandMessage& command,
                                      const proto::MessageMetadata& metadata,
                                      std::string_view payload, const EntryContext& context,
                                      UnpackedEntry& out);

// The same for a decoded MESSAGE frame, sharing its payload. errc::protocol_error when it is not
// one.
reconsume::detail::Status unpackEntry(const Frame& frame, const EntryContext& context,
                                      UnpackedEntry& out);
reconsume::detail::Status unpackEntry(Frame&& frame, const EntryContext& context,
                                      UnpackedEntry& out);

}  // namespace reconsume::detail::protocol
