#include "protocol/frame_encoder.hpp"

#include <cstdint>
#include <limits>

#include "common/large_buffers.hpp"
#include "protocol/byte_order.hpp"
#include "protocol/crc32c.hpp"
#include "protocol/frame.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

// Checks and sizes a message before it is written. ByteSizeLong also caches the sizes, which
// SerializeWithCachedSizesToArray then uses, so each message is measured once.
std::size_t measure(const google::protobuf::MessageLite& message, std::string_view what) {
  // The lite runtime cannot say which field is missing, only that one is.
  if (!message.IsInitialized()) {
    throw Error(errc::invalid_argument,
                "cannot encode " + std::string(what) + ": a required field is not set");
  }
  return message.ByteSizeLong();
}

std::string commandName(const proto::BaseCommand& command) {
  return command.has_type() ? proto::BaseCommand::Type_Name(command.type()) : "command";
}

std::uint32_t checkedFrameSize(std::size_t size, const proto::BaseCommand& command) {
  if (size > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(errc::too_large, commandName(command) + " frame of " + std::to_string(size) +
                                     " bytes does not fit Pulsar's 32-bit frame size");
  }
  return static_cast<std::uint32_t>(size);
}

// Appends [size][message] for a message already measured.
void appendSized(std::string& out, const google::protobuf::MessageLite& message, std::size_t size) {
  const std::size_t at = out.size();
  out.resize(at + 4 + size);
  wire::writeU32(out.data() + at, static_cast<std::uint32_t>(size));
  message.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data() + at + 4));
}

void appendPayloadFrameImpl(std::string& out, const proto::BaseCommand& command,
                            const proto::BrokerEntryMetadata* brokerEntryMetadata,
                            const proto::MessageMetadata& metadata, std::string_view payload) {
  const std::size_t commandSize = measure(command, commandName(command));
  const std::size_t entrySize =
      brokerEntryMetadata ? measure(*brokerEntryMetadata, "BrokerEntryMetadata") : 0;
  const std::size_t metadataSize = measure(metadata, "MessageMetadata");
  const std::size_t total = 4 + commandSize + (brokerEntryMetadata ? 2 + 4 + entrySize : 0) + 2 +
                            4 + 4 + metadataSize + payload.size();
  const std::uint32_t totalSize = checkedFrameSize(total, command);

  out.reserve(out.size() + 4 + total);
  wire::appendU32(out, totalSize);
  appendSized(out, command, commandSize);
  if (brokerEntryMetadata) {
    wire::appendU16(out, kBrokerEntryMetadataMagic);
    appendSized(out, *brokerEntryMetadata, entrySize);
  }
  wire::appendU16(out, kChecksumMagic);
  const std::size_t checksumAt = out.size();
  wire::appendU32(out, 0);  // filled in once what it covers is written
  const std::size_t coveredFrom = out.size();
  appendSized(out, metadata, metadataSize);
  out.append(payload);
  const std::uint32_t checksum = crc32c(0, out.data() + coveredFrom, out.size() - coveredFrom);
  wire::writeU32(out.data() + checksumAt, checksum);
}

}  // namespace

void appendFrame(std::string& out, const proto::BaseCommand& command) {
  const std::size_t commandSize = measure(command, commandName(command));
  const std::uint32_t totalSize = checkedFrameSize(4 + commandSize, command);
  out.reserve(out.size() + 4 + totalSize);
  wire::appendU32(out, totalSize);
  appendSized(out, command, commandSize);
}

std::string encodeFrame(const proto::BaseCommand& command) {
  std::string out;
  appendFrame(out, command);
  return out;
}

void appendPayloadFrame(std::string& out, const proto::BaseCommand& command,
                        const proto::MessageMetadata& metadata, std::string_view payload) {
  appendPayloadFrameImpl(out, command, nullptr, metadata, payload);
}

void appendPayloadFrame(std::string& out, const proto::BaseCommand& command,
                        const proto::BrokerEntryMetadata& brokerEntryMetadata,
                        const proto::MessageMetadata& metadata, std::string_view payload) {
  appendPayloadFrameImpl(out, command, &brokerEntryMetadata, metadata, payload);
}

Bytes encodePayloadFrameInPlace(std::string buffer, std::size_t payloadBegin,
                                const proto::BaseCommand& command,
                                const proto::MessageMetadata& metadata) {
  const std::size_t commandSize = measure(command, commandName(command));
  const std::size_t metadataSize = measure(metadata, "MessageMetadata");
  const std::size_t head = 4 + 4 + commandSize + 2 + 4 + 4 + metadataSize;
  if (head > payloadBegin) {
    const std::string_view payload(buffer.data() + payloadBegin, buffer.size() - payloadBegin);
    auto frame = Bytes::adopt(encodePayloadFrame(command, metadata, payload));
    LargeBuffers::shared().give(std::move(buffer));
    return frame;
  }
  const std::size_t begin = payloadBegin - head;
  const std::size_t total = buffer.size() - begin - 4;
  const std::uint32_t totalSize = checkedFrameSize(total, command);
  char* at = buffer.data() + begin;
  wire::writeU32(at, totalSize);
  wire::writeU32(at + 4, static_cast<std::uint32_t>(commandSize));
  command.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(at + 8));
  at += 8 + commandSize;
  wire::writeU16(at, kChecksumMagic);
  char* checksumAt = at + 2;
  char* covered = at + 6;
  wire::writeU32(covered, static_cast<std::uint32_t>(metadataSize));
  metadata.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(covered + 4));
  const char* end = buffer.data() + buffer.size();
  wire::writeU32(checksumAt, crc32c(0, covered, static_cast<std::size_t>(end - covered)));
  const std::size_t length = buffer.size() - begin;
  return LargeBuffers::shared().adopt(std::move(buffer), begin, length);
}

std::string encodePayloadFrame(const proto::BaseCommand& command,
                               const proto::MessageMetadata& metadata, std::string_view payload) {
  std::string out;
  appendPayloadFrameImpl(out, command, nullptr, metadata, payload);
  return out;
}

}  // namespace reconsume::detail::protocol
