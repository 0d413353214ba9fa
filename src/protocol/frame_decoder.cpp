#include "protocol/frame_decoder.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>

#include "protocol/byte_order.hpp"
#include "protocol/command_body.hpp"
#include "protocol/crc32c.hpp"

namespace reconsume::detail::protocol {
namespace {

using Type = proto::BaseCommand;

std::string hex(std::uint32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*x", digits, value);
  return text;
}

std::string typeName(const proto::BaseCommand& command) {
  return proto::BaseCommand::Type_Name(command.type());
}

bool isPayloadCommand(const proto::BaseCommand& command) {
  return command.type() == Type::SEND || command.type() == Type::MESSAGE;
}

// Names what a payload frame carries, for error messages: "MESSAGE (consumer 3, entry 12:34)".
std::string describe(const proto::BaseCommand& command) {
  std::string text = typeName(command);
  if (command.type() == Type::MESSAGE) {
    const auto& id = command.message().message_id();
    text += " (consumer " + std::to_string(command.message().consumer_id()) + ", entry " +
            std::to_string(static_cast<std::int64_t>(id.ledgerid())) + ":" +
            std::to_string(static_cast<std::int64_t>(id.entryid())) + ")";
  } else if (command.type() == Type::SEND) {
    text += " (producer " + std::to_string(command.send().producer_id()) + ", sequence id " +
            std::to_string(command.send().sequence_id()) + ")";
  }
  return text;
}

// A failure the decoder cannot step over: the stream itself is broken.
DecodeError streamError(FrameError kind, std::string message) {
  DecodeError error;
  error.kind = kind;
  error.message = std::move(message);
  return error;
}

DecodeError frameError(FrameError kind, std::string message,
                       const proto::BaseCommand* command = nullptr) {
  DecodeError error;
  error.kind = kind;
  error.message = std::move(message);
  error.resumable = true;
  if (command) error.command = *command;
  return error;
}

// "<frame> is truncated: <part> needs <need> bytes, <left> left".
DecodeError truncatedPart(const proto::BaseCommand& command, std::string_view part,
                          std::size_t need, std::size_t left) {
  return frameError(FrameError::truncated,
                    describe(command) + " frame is truncated: " + std::string(part) + " needs " +
                        std::to_string(need) + " bytes, " + std::to_string(left) + " left",
                    &command);
}

// The broker entry metadata (after its magic 0x0e02, which `section` starts with) into `frame`;
// moves `section` past it.
std::optional<DecodeError> decodeBrokerEntryMetadata(std::string_view& section, Frame& frame) {
  const auto& command = frame.command;
  if (section.size() < 6) {
    return truncatedPart(command, "the broker entry metadata size", 6, section.size());
  }
  const std::uint32_t size = wire::readU32(section.data() + 2);
  section.remove_prefix(6);
  if (size > section.size()) {
    return frameError(FrameError::truncated,
                      describe(command) + " frame is truncated: broker entry metadata size " +
                          std::to_string(size) + " exceeds the " + std::to_string(section.size()) +
                          " bytes left",
                      &command);
  }
  proto::BrokerEntryMetadata entry;
  if (!entry.ParsePartialFromArray(section.data(), static_cast<int>(size))) {
    return frameError(FrameError::bad_broker_entry_metadata,
                      describe(command) + " frame has broker entry metadata of " +
                          std::to_string(size) + " bytes that does not parse",
                      &command);
  }
  frame.brokerEntryMetadata = std::move(entry);
  section.remove_prefix(size);
  return std::nullopt;
}

// The checksum, when `magic` (the first two bytes of `section`) is 0x0e01: verified over the rest
// of the section if the options say so, and `section` moved past it. Without it, the section is
// left as it is, and it is an error if the options require a checksum.
std::optional<DecodeError> decodeChecksum(std::string_view& section, std::uint16_t magic,
                                          const FrameDecoderOptions& options, Frame& frame) {
  const auto& command = frame.command;
  if (magic == kChecksumMagic) {
    if (section.size() < 6) return truncatedPart(command, "the checksum", 6, section.size());
    const std::uint32_t expected = wire::readU32(section.data() + 2);
    section.remove_prefix(6);
    if (options.verifyChecksum) {
      const std::uint32_t actual = crc32c(0, section.data(), section.size());
      if (actual != expected) {
        return frameError(FrameError::checksum_mismatch,
                          describe(command) + " frame fails its checksum: the frame says " +
                              hex(expected, 8) + ", its " + std::to_string(section.size()) +
                              " bytes give " + hex(actual, 8),
                          &command);
      }
    }
    frame.hasChecksum = true;
  } else if (options.requireChecksum) {
    return frameError(FrameError::bad_magic,
                      describe(command) + " frame's payload section starts with " + hex(magic, 4) +
                          ", expected the checksum magic 0x0e01",
                      &command);
  }
  return std::nullopt;
}

// The sized MessageMetadata and, after it, the payload, into `frame`: a view into what `owner`
// keeps alive, or a copy without one.
std::optional<DecodeError> decodeMetadataAndPayload(std::string_view section, Frame& frame,
                                                    const std::shared_ptr<const void>& owner) {
  const auto& command = frame.command;
  if (section.size() < 4) return truncatedPart(command, "the metadata size", 4, section.size());
  const std::uint32_t metadataSize = wire::readU32(section.data());
  section.remove_prefix(4);
  if (metadataSize > section.size()) {
    return frameError(FrameError::truncated,
                      describe(command) + " frame is truncated: metadata size " +
                          std::to_string(metadataSize) + " exceeds the " +
                          std::to_string(section.size()) + " bytes left",
                      &command);
  }
  proto::MessageMetadata metadata;
  const bool parsed =
      metadata.ParsePartialFromArray(section.data(), static_cast<int>(metadataSize));
  if (!parsed || !metadata.IsInitialized()) {
    return frameError(FrameError::bad_metadata,
                      describe(command) + " frame has MessageMetadata of " +
                          std::to_string(metadataSize) + " bytes that does not parse" +
                          (parsed ? " (a required field is missing)" : ""),
                      &command);
  }
  section.remove_prefix(metadataSize);
  frame.metadata = std::move(metadata);
  frame.payload = owner ? Bytes(owner, section) : Bytes::copy(section);
  return std::nullopt;
}

// Parses the payload section (everything after the command) into `frame`: [broker entry metadata]
// [checksum] metadata payload.
std::optional<DecodeError> decodePayloadSection(std::string_view section,
                                                const FrameDecoderOptions& options, Frame& frame,
                                                const std::shared_ptr<const void>& owner) {
  if (section.size() < 2) {
    return truncatedPart(frame.command, "the payload section's magic", 2, section.size());
  }
  std::uint16_t magic = wire::readU16(section.data());
  if (magic == kBrokerEntryMetadataMagic) {
    if (auto error = decodeBrokerEntryMetadata(section, frame)) return error;
    if (section.size() < 2) {
      return truncatedPart(frame.command, "the magic after the broker entry metadata", 2,
                           section.size());
    }
    magic = wire::readU16(section.data());
  }
  if (auto error = decodeChecksum(section, magic, options, frame)) return error;
  return decodeMetadataAndPayload(section, frame, owner);
}

}  // namespace

DecodeResult decodeFrameBody(std::string_view body, const FrameDecoderOptions& options,
                             const std::shared_ptr<const void>& owner) {
  // Protobuf parses at most INT_MAX bytes at a time.
  if (body.size() > INT_MAX) {
    return frameError(FrameError::oversize, "frame size " + std::to_string(body.size()) +
                                                " exceeds the maximum " + std::to_string(INT_MAX));
  }
  if (body.size() < 4) {
    return frameError(FrameError::bad_size, "frame size " + std::to_string(body.size()) +
                                                " is too small for the command size field");
  }
  const std::uint32_t commandSize = wire::readU32(body.data());
  body.remove_prefix(4);
  if (commandSize > body.size()) {
    return frameError(FrameError::bad_size, "command size " + std::to_string(commandSize) +
                                                " exceeds the " + std::to_string(body.size()) +
                                                " bytes left in a frame of size " +
                                                std::to_string(body.size() + 4));
  }

  Frame frame;
  auto& command = frame.command;
  if (!command.ParsePartialFromArray(body.data(), static_cast<int>(commandSize))) {
    return frameError(FrameError::bad_command,
                      "command of " + std::to_string(commandSize) + " bytes does not parse");
  }
  // An enum value proto2 does not know is kept aside as an unknown field, so an unknown command
  // type shows up as a missing one.
  if (!command.has_type()) {
    return frameError(FrameError::unknown_command,
                      "command of " + std::to_string(commandSize) +
                          " bytes has a type that is missing or unknown to this client");
  }
  if (!command.IsInitialized() || !hasBody(command)) {
    const std::string missing = command.IsInitialized() ? "its body" : "a required field";
    return frameError(FrameError::bad_command, typeName(command) + " command lacks " + missing,
                      &command);
  }
  body.remove_prefix(commandSize);

  if (body.empty()) {
    if (isPayloadCommand(command)) {
      return frameError(FrameError::truncated, describe(command) + " frame has no payload section",
                        &command);
    }
    return frame;
  }
  if (!isPayloadCommand(command)) {
    return frameError(FrameError::bad_size,
                      typeName(command) + " frame has " + std::to_string(body.size()) +
                          " unexpected bytes after its command",
                      &command);
  }
  if (auto error = decodePayloadSection(body, options, frame, owner)) return std::move(*error);
  return frame;
}

FrameDecoder::FrameDecoder(FrameDecoderOptions options) : options_(options) {}

void FrameDecoder::setMaxMessageSize(std::uint32_t maxMessageSize) {
  options_.maxFrameSize = maxFrameSizeFor(maxMessageSize);
}

void FrameDecoder::makeRoom(std::size_t size) {
  if (capacity_ - end_ >= size) return;
  const std::size_t pending = end_ - begin_;
  if (chunk_ && chunk_.use_count() == 1 && capacity_ >= pending + size) {
    // No frame shares the chunk any more: the undecoded bytes move to its front. The fence pairs
    // with the release of the last sharer, whose reads of the old bytes come before this write.
    std::atomic_thread_fence(std::memory_order_acquire);
    std::memmove(chunk_.get(), chunk_.get() + begin_, pending);
  } else {
    // Frames decoded from it still share it (their payloads are views into it), or it is too
    // small: a new chunk, with the partial frame copied over. A chunk holds several frames of the
    // size seen so far, so few bytes are copied twice.
    const std::size_t capacity = std::max(preferredChunk_, pending + size);
    auto fresh = std::allocate_shared_for_overwrite<char[]>(ChunkAllocator<char>(pool_), capacity);
    if (pending > 0) std::memcpy(fresh.get(), chunk_.get() + begin_, pending);
    chunk_ = std::move(fresh);
    capacity_ = capacity;
  }
  begin_ = 0;
  end_ = pending;
}

void FrameDecoder::feed(const void* data, std::size_t size) {
  if (size == 0) return;
  makeRoom(size);
  std::memcpy(chunk_.get() + end_, data, size);
  end_ += size;
}

std::span<char> FrameDecoder::prepare(std::size_t size) {
  makeRoom(size);
  return {chunk_.get() + end_, size};
}

void FrameDecoder::commit(std::size_t size) {
  end_ += std::min(size, capacity_ - end_);
}

DecodeResult FrameDecoder::next() {
  if (failure_) return *failure_;
  if (end_ - begin_ < 4) return {};
  const std::uint32_t totalSize = wire::readU32(chunk_.get() + begin_);
  if (totalSize > options_.maxFrameSize) {
    failure_ = streamError(FrameError::oversize, "frame size " + std::to_string(totalSize) +
                                                     " exceeds the maximum " +
                                                     std::to_string(options_.maxFrameSize));
    return *failure_;
  }
  if (totalSize < 4) {
    failure_ = streamError(FrameError::bad_size, "frame size " + std::to_string(totalSize) +
                                                     " is too small for the command size field");
    return *failure_;
  }
  if (end_ - begin_ < 4 + std::size_t{totalSize}) return {};

  const std::string_view body(chunk_.get() + begin_ + 4, totalSize);
  begin_ += 4 + std::size_t{totalSize};
  preferredChunk_ = std::max(preferredChunk_, std::min(kFramesPerChunk * totalSize, kMaxChunk));
  // The payload stays in the chunk, shared: no copy per frame. The positions are not rewound when
  // it is all decoded, as the frame may share the chunk: makeRoom decides where to read next.
  return decodeFrameBody(body, options_, chunk_);
}

std::optional<DecodeError> FrameDecoder::finish() const {
  if (failure_) return failure_;
  if (begin_ == end_) return std::nullopt;
  std::string message =
      "the stream ended inside a frame: " + std::to_string(end_ - begin_) + " bytes left over";
  if (end_ - begin_ >= 4) {
    message += " of a frame of size " + std::to_string(wire::readU32(chunk_.get() + begin_));
  }
  return streamError(FrameError::truncated, std::move(message));
}

std::string_view toString(FrameError error) {
  switch (error) {
    case FrameError::oversize:
      return "oversize";
    case FrameError::bad_size:
      return "bad_size";
    case FrameError::truncated:
      return "truncated";
    case FrameError::bad_command:
      return "bad_command";
    case FrameError::unknown_command:
      return "unknown_command";
    case FrameError::bad_magic:
      return "bad_magic";
    case FrameError::bad_broker_entry_metadata:
      return "bad_broker_entry_metadata";
    case FrameError::checksum_mismatch:
      return "checksum_mismatch";
    case FrameError::bad_metadata:
      return "bad_metadata";
  }
  return "unknown frame error";
}

reconsume::detail::Status DecodeError::toStatus() const {
  return {errc::protocol_error, message};
}

}  // namespace reconsume::detail::protocol
