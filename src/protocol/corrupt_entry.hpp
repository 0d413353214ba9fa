// A damaged entry a consumer received, and what it tells the broker about it. As the Java client
// does, the consumer discards it — acknowledges it with CommandAck.validation_error saying why —
// and reports it; the connection, shared by every producer and consumer on that broker, stays up.
//
// Damaged means the frame's bounds were sound (the decoder went on with the next frame) and its
// command says whose message it was, but its payload section is not: a CRC32C mismatch, a magic
// that is neither 0x0e01 nor 0x0e02, broker entry metadata or MessageMetadata that do not parse
// (all ChecksumMismatch, as the Java client reports them). Entries whose payload does not unpack
// (decompression, batch framing) say so themselves (UnpackedEntry::corruption).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "PulsarApi.pb.h"
#include "protocol/frame.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::protocol {

struct CorruptEntry {
  std::uint64_t consumerId{0};
  MessageId id;  // the entry (ledger, entry; partition -1: the consumer knows its partition)
  proto::CommandAck::ValidationError reason{proto::CommandAck::ChecksumMismatch};
  std::string why;  // the decoder's words
};

// The damaged MESSAGE behind `error`, or nothing when the error is not about one entry (the
// stream itself is broken, or the frame is another command): then the connection must go.
std::optional<CorruptEntry> corruptEntryOf(const DecodeError& error);

}  // namespace reconsume::detail::protocol
