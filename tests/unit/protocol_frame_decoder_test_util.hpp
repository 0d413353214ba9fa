// What the FrameDecoder tests (protocol_frame_decoder_*_test.cpp) share: message frames, hand-made
// frames and payload sections, and decoding a stream to its frames or its error.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/byte_order.hpp"
#include "protocol/crc32c.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"

namespace reconsume::detail::protocol::test {

inline proto::MessageMetadata metadata(std::string producer = "producer-1",
                                       std::uint64_t sequence = 7) {
  proto::MessageMetadata meta;
  meta.set_producer_name(std::move(producer));
  meta.set_sequence_id(sequence);
  meta.set_publish_time(1'700'000'000'000);
  auto& property = *meta.add_properties();
  property.set_key("RECONSUMETIMES");
  property.set_value("2");
  return meta;
}

inline proto::BaseCommand messageCommand(std::uint64_t consumerId, std::uint64_t ledger,
                                         std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(consumerId);
  message.mutable_message_id()->set_ledgerid(ledger);
  message.mutable_message_id()->set_entryid(entry);
  return command;
}

inline std::string messageFrame(std::string_view payload, std::uint64_t entry = 34) {
  std::string out;
  appendPayloadFrame(out, messageCommand(3, 12, entry), metadata(), payload);
  return out;
}

// Decodes everything fed so far; fails the test on an error.
inline std::vector<Frame> drain(FrameDecoder& decoder) {
  std::vector<Frame> frames;
  for (;;) {
    auto result = decoder.next();
    if (result.needsMore()) break;
    if (result.hasError()) {
      ADD_FAILURE() << result.error().message;
      break;
    }
    frames.push_back(std::move(result.frame()));
  }
  return frames;
}

inline DecodeError decodeError(std::string_view stream, FrameDecoderOptions options = {}) {
  FrameDecoder decoder(options);
  decoder.feed(stream);
  auto result = decoder.next();
  EXPECT_TRUE(result.hasError()) << "decoded without error";
  return result.hasError() ? result.error() : DecodeError{};
}

// A frame with hand-made parts: [total][commandSize][command][rest].
inline std::string rawFrame(std::string_view command, std::string_view rest = {}) {
  std::string out;
  wire::appendU32(out, static_cast<std::uint32_t>(4 + command.size() + rest.size()));
  wire::appendU32(out, static_cast<std::uint32_t>(command.size()));
  out.append(command);
  out.append(rest);
  return out;
}

inline std::string serialized(const google::protobuf::MessageLite& message) {
  return message.SerializePartialAsString();
}

// The payload section after the command, with a correct checksum over `afterChecksum`.
inline std::string checksummed(std::string_view afterChecksum) {
  std::string out;
  wire::appendU16(out, kChecksumMagic);
  wire::appendU32(out, crc32c(0, afterChecksum.data(), afterChecksum.size()));
  out.append(afterChecksum);
  return out;
}

inline std::string sized(std::string_view part) {
  std::string out;
  wire::appendU32(out, static_cast<std::uint32_t>(part.size()));
  out.append(part);
  return out;
}

}  // namespace reconsume::detail::protocol::test
