// Builds a batch entry the way Pulsar's Java producer does: the payload is a sequence of
// [u32 size][SingleMessageMetadata][payload], one per message, compressed as a whole; the entry's
// MessageMetadata carries num_messages_in_batch, the first and highest sequence id, and the
// uncompressed size. Used by tests to build realistic batched entries, and by a producer that
// batches.
//
// Thread safety: a BatchBuilder is a plain value; use it from one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "PulsarApi.pb.h"
#include "common/outgoing_data.hpp"
#include "protocol/outgoing.hpp"
#include "reconsume/detail/recycled_blocks.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::protocol {

class BatchBuilder {
 public:
  // `frameHeadroom`: bytes kept free in front of the batch, where finishFrame() writes the frame's
  // head so that the batch is not copied into the frame. 0 for finish() alone.
  explicit BatchBuilder(std::size_t frameHeadroom = 0) : headroom_(frameHeadroom) {}
  // Enough for the SEND command and the entry's metadata as a producer writes them.
  static constexpr std::size_t kFrameHeadroom = 512;

  // Pulsar does not batch messages with a delivery delay (the delay applies to a whole entry).
  static bool canBatch(const OutgoingData& message) {
    return !message.deliverAfter && !message.deliverAt;
  }

  // The metadata a message has inside a batch: properties, partition key (with the base64 flag),
  // ordering key and event time; no sequence id yet and no payload size. A producer builds it on
  // the sender's thread and adds it with the sequence id once that is known.
  static proto::SingleMessageMetadata singleMetadata(const OutgoingData& message);
  // The same, serialized, with payload_size set: what addSerialized() takes. A producer builds it
  // on the sender's thread, so that its I/O thread only copies bytes; the I/O thread frees it, so
  // it comes from the recycled blocks.
  using SerializedMetadata =
      std::basic_string<char, std::char_traits<char>, RecyclingAllocator<char>>;
  static SerializedMetadata serializedMetadata(const OutgoingData& message);

  // The keys of a message, for the entry's shared key.
  struct Keys {
    const std::optional<std::string>* key = nullptr;
    bool keyIsBase64 = false;
    const std::optional<std::string>* orderingKey = nullptr;
  };
  // Adds a message from serializedMetadata() (without sequence id) and its payload, writing
  // `sequenceId` into its metadata.
  void addSerialized(std::string_view metadata, std::uint64_t sequenceId, std::string_view payload,
                     const Keys& keys);
  // Room for `bytes` more of batch payload, so that adding does not grow the buffer step by step.
  // A batch's first reservation takes a kept buffer (common/large_buffers.hpp) when it is large.
  void reserve(std::size_t bytes);

  // Adds a message: its payload and its own properties, partition key (with the base64 flag),
  // ordering key and event time. Throws Error(errc::invalid_argument) when !canBatch(message).
  void add(const OutgoingData& message, std::uint64_t sequenceId);
  // Adds a message with hand-made metadata (tests use it for null values, compacted-out
  // messages, ...). payload_size is set from `payload`.
  void add(proto::SingleMessageMetadata metadata, std::string_view payload);

  std::size_t size() const { return count_; }  // messages so far
  bool empty() const { return count_ == 0; }
  // Uncompressed payload so far.
  std::size_t bytes() const { return batch_.empty() ? 0 : batch_.size() - headroom_; }

  // The entry: metadata (producer name, publish time and compression from `context`; sequence id
  // of the first message; highest_sequence_id of the last) and the compressed payload. When every
  // message has the same partition key (or ordering key) the entry carries it too, as Pulsar's
  // key-based batching does, so Key_Shared dispatch sees it. With `deliverAtMs` the whole entry is
  // delivered then (deliver_at_time; retry batching). The builder is empty afterwards.
  EncodedMessage finish(const SendContext& context,
                        std::optional<std::uint64_t> deliverAtMs = std::nullopt);
  // The same as the complete SEND frame of producer `producerId` (protocol::encodeSend of
  // finish()'s result), written around the batch where there is headroom: without compression the
  // batch is not copied.
  Bytes finishFrame(std::uint64_t producerId, const SendContext& context,
                    std::optional<std::uint64_t> deliverAtMs = std::nullopt);

 private:
  proto::MessageMetadata entryMetadata(const SendContext& context,
                                       std::optional<std::uint64_t> deliverAtMs) const;
  // The headroom, before the first message.
  void startBatch() {
    if (batch_.empty()) batch_.assign(headroom_, '\0');
  }
  // Empty again, for the next batch.
  void reset();
  void noteKeys(const std::optional<std::string>& key, bool keyIsBase64,
                const std::optional<std::string>& orderingKey);
  void noteSequenceId(std::uint64_t sequenceId);

  std::string batch_;  // the headroom, then the messages
  std::size_t headroom_{0};
  std::size_t count_{0};
  std::optional<std::uint64_t> firstSequenceId_, lastSequenceId_;
  // The key every message so far shares; `mixedKeys_` once two differ.
  std::optional<std::string> sharedKey_, sharedOrderingKey_;
  bool sharedKeyIsBase64_{false};
  bool mixedKeys_{false}, mixedOrderingKeys_{false};
};

}  // namespace reconsume::detail::protocol
