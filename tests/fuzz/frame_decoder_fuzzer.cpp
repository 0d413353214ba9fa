// libFuzzer target: arbitrary bytes through the frame decoder, then whatever payload frames come
// out through entry unpacking (decompression, batch splitting, ack sets).
//
// Input: [mode byte][stream]. The mode byte picks
//   bits 0-5  the size of the reads the stream is cut into (1..64 bytes),
//   bit 6     skip checksum verification, so mutated payloads reach the codecs and the batch
//             splitter instead of stopping at the CRC,
//   bit 7     accept payload sections without the checksum magic.
//
// Besides "no crash, no sanitizer report", it checks two properties and aborts when they fail:
// decoding does not depend on how the stream was cut into reads, and every frame decoded
// re-encodes to a frame that decodes to the same command, metadata and payload.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/batch_ack_tracker.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"

namespace {

using namespace reconsume::detail::protocol;
namespace proto = reconsume::proto;

constexpr std::uint32_t kMaxFrameSize = 1 << 20;
constexpr std::uint32_t kMaxUncompressedSize = 1 << 20;

// A frame or an error reduced to comparable text.
std::string summary(const DecodeResult& result) {
  if (result.hasError()) {
    return "error " + std::string(toString(result.error().kind)) + " " + result.error().message;
  }
  const Frame& frame = result.frame();
  std::string text = "frame " + frame.command.SerializePartialAsString();
  if (frame.metadata)
    text += "|" + frame.metadata->SerializePartialAsString() + "|" + frame.payload.toString();
  if (frame.brokerEntryMetadata)
    text += "|" + frame.brokerEntryMetadata->SerializePartialAsString();
  return text;
}

void check(bool condition) {
  if (!condition) std::abort();
}

void unpack(const Frame& frame) {
  if (!frame.metadata) return;
  proto::CommandMessage command;
  if (frame.command.type() == proto::BaseCommand::MESSAGE) {
    command = frame.command.message();
  } else {
    command.set_consumer_id(1);
    command.mutable_message_id()->set_ledgerid(1);
    command.mutable_message_id()->set_entryid(1);
  }
  EntryContext context{.topic = "persistent://public/default/fuzz",
                       .partition = 0,
                       .maxUncompressedSize = kMaxUncompressedSize};
  UnpackedEntry entry;
  const auto status = unpackEntry(command, *frame.metadata, frame.payload, context, entry);
  if (!status) {
    check(entry.messages.empty());
    return;
  }
  if (entry.tracker) {
    check(entry.batchSize == entry.tracker->batchSize());
    for (const auto& message : entry.messages) {
      check(message.data.id.batchIndex() >= 0 && message.data.id.batchIndex() < entry.batchSize);
      entry.tracker->acknowledge(message.data.id.batchIndex());
    }
    check(entry.tracker->complete());
    const std::vector<std::int64_t> ackSet(command.ack_set().begin(), command.ack_set().end());
    BatchAckTracker fromBroker(entry.batchSize, ackSet);
    (void)fromBroker.ackSet();
  } else {
    check(entry.messages.size() == 1);
  }
}

void roundTrip(const Frame& frame) {
  std::string encoded;
  if (!frame.metadata) {
    appendFrame(encoded, frame.command);
  } else if (frame.brokerEntryMetadata) {
    appendPayloadFrame(encoded, frame.command, *frame.brokerEntryMetadata, *frame.metadata,
                       frame.payload.view());
  } else {
    appendPayloadFrame(encoded, frame.command, *frame.metadata, frame.payload.view());
  }
  FrameDecoder decoder(FrameDecoderOptions{.maxFrameSize = UINT32_MAX});
  decoder.feed(encoded);
  DecodeResult again = decoder.next();
  check(again.hasFrame());
  const Frame& copy = again.frame();
  check(copy.command.SerializePartialAsString() == frame.command.SerializePartialAsString());
  check(copy.metadata.has_value() == frame.metadata.has_value());
  if (frame.metadata) {
    check(copy.metadata->SerializePartialAsString() == frame.metadata->SerializePartialAsString());
    check(copy.payload == frame.payload.view());
  }
  check(decoder.buffered() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  FrameDecoderOptions options;
  options.maxFrameSize = kMaxFrameSize;
  options.verifyChecksum = (mode & 0x40) == 0;
  options.requireChecksum = (mode & 0x80) == 0;

  // Decode in one go, as the reference.
  std::vector<std::string> whole;
  {
    FrameDecoder decoder(options);
    decoder.feed(stream);
    for (;;) {
      DecodeResult result = decoder.next();
      if (result.needsMore()) break;
      whole.push_back(summary(result));
      if (result.hasFrame()) {
        unpack(result.frame());
        roundTrip(result.frame());
        if (result.frame().command.type() == proto::BaseCommand::ERROR) {
          (void)serverError(result.frame().command.error().error(),
                            result.frame().command.error().message());
        }
      } else if (!result.error().resumable) {
        break;
      }
    }
  }

  // Decode again in reads of `step` bytes: the same frames and errors must come out.
  const std::size_t step = (mode & 0x3f) + 1;
  std::vector<std::string> chunked;
  FrameDecoder decoder(options);
  bool stopped = false;
  for (std::size_t at = 0; at < stream.size() && !stopped; at += step) {
    const std::size_t n = std::min(step, stream.size() - at);
    auto space = decoder.prepare(n);
    std::copy_n(stream.data() + at, n, space.data());
    decoder.commit(n);
    for (;;) {
      DecodeResult result = decoder.next();
      if (result.needsMore()) break;
      chunked.push_back(summary(result));
      if (result.hasError() && !result.error().resumable) {
        stopped = true;
        break;
      }
    }
  }
  (void)decoder.finish();
  check(whole == chunked);
  return 0;
}
