// Frames of Pulsar's binary protocol: what a decoded frame is, and how decoding can fail.
//
// Wire layout (all integers big-endian):
//
//   simple command   [totalSize u32][commandSize u32][BaseCommand]
//   payload command  [totalSize u32][commandSize u32][BaseCommand]
//                    ([0x0e02 u16][size u32][BrokerEntryMetadata])   optional, broker to client
//                    [0x0e01 u16][crc32c u32]                        CRC32C of everything after it
//                    [metadataSize u32][MessageMetadata][payload]
//
// totalSize counts every byte after itself. SEND (client to broker) and MESSAGE (broker to
// client) are the payload commands.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "PulsarApi.pb.h"
#include "common/bytes.hpp"
#include "common/status.hpp"

namespace reconsume::detail::protocol {

inline constexpr std::uint16_t kChecksumMagic = 0x0e01;
inline constexpr std::uint16_t kBrokerEntryMetadataMagic = 0x0e02;

// Pulsar's default maximum message size, and the room a frame gets on top of it for the command
// and the metadata (the Java client's frame decoder allows maxMessageSize + 10 KiB too).
inline constexpr std::uint32_t kDefaultMaxMessageSize = 5 * 1024 * 1024;
inline constexpr std::uint32_t kFramePadding = 10 * 1024;

// The largest totalSize accepted when the broker's maximum message size is `maxMessageSize`.
constexpr std::uint32_t maxFrameSizeFor(std::uint32_t maxMessageSize) {
  return maxMessageSize > UINT32_MAX - kFramePadding ? UINT32_MAX : maxMessageSize + kFramePadding;
}
inline constexpr std::uint32_t kDefaultMaxFrameSize = maxFrameSizeFor(kDefaultMaxMessageSize);

// One decoded frame.
struct Frame {
  proto::BaseCommand command;
  // Payload commands only: the metadata and the payload exactly as stored by the producer (still
  // compressed when metadata->compression() says so; see compression.hpp and entry_unpacker.hpp).
  std::optional<proto::MessageMetadata> metadata;
  // A view into the buffer the frame was read into (FrameDecoder): shared, not copied.
  Bytes payload;
  // Present when the broker put broker entry metadata in front of the entry.
  std::optional<proto::BrokerEntryMetadata> brokerEntryMetadata;
  bool hasChecksum{false};  // the payload section carried magic 0x0e01 and its CRC32C

  bool hasPayload() const { return metadata.has_value(); }
};

enum class FrameError {
  oversize,                   // totalSize above the maximum frame size
  bad_size,                   // sizes that contradict each other or cannot be right
  truncated,                  // a part ends before the size it declared, or the stream ended
  bad_command,                // the BaseCommand does not parse or lacks what its type requires
  unknown_command,            // the command's type is missing or unknown to this library
  bad_magic,                  // the payload section starts with neither 0x0e01 nor 0x0e02
  bad_broker_entry_metadata,  // BrokerEntryMetadata does not parse
  checksum_mismatch,          // CRC32C of metadata and payload differs from the frame's
  bad_metadata,               // MessageMetadata does not parse
};

// "oversize", "checksum_mismatch", ...
std::string_view toString(FrameError error);

// Why a frame could not be decoded. `message` names the offending value, e.g.
// "frame size 104857600 exceeds the maximum 5253120".
struct DecodeError {
  FrameError kind{FrameError::bad_size};
  std::string message;
  // True when only this frame was bad: its bytes were consumed and the decoder can go on with the
  // next frame. False when the stream itself can no longer be trusted (oversize, nonsense frame
  // size, truncated stream): the decoder stays failed and the connection must be closed.
  bool resumable{false};
  // The frame's command when it parsed (checksum_mismatch, bad_magic, bad_metadata, ...), so the
  // caller can tell which consumer and message the bad frame was for.
  std::optional<proto::BaseCommand> command;

  // errc::protocol_error with `message`.
  reconsume::detail::Status toStatus() const;
};

// What FrameDecoder::next() found: a frame, an error, or nothing yet (more bytes are needed).
class DecodeResult {
 public:
  DecodeResult() = default;  // needs more bytes
  DecodeResult(Frame frame) : value_(std::move(frame)) {}
  DecodeResult(DecodeError error) : value_(std::move(error)) {}

  bool needsMore() const { return value_.index() == 0; }
  bool hasFrame() const { return value_.index() == 1; }
  bool hasError() const { return value_.index() == 2; }
  // Precondition: hasFrame() / hasError() respectively.
  Frame& frame() { return std::get<Frame>(value_); }
  const Frame& frame() const { return std::get<Frame>(value_); }
  const DecodeError& error() const { return std::get<DecodeError>(value_); }

 private:
  std::variant<std::monostate, Frame, DecodeError> value_;
};

}  // namespace reconsume::detail::protocol
