#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/byte_order.hpp"
#include "protocol/commands.hpp"
#include "protocol/crc32c.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol_test_util.hpp"

namespace reconsume::detail::protocol {
namespace {

using test::bytes;

proto::MessageMetadata metadata(std::string producer = "producer-1", std::uint64_t sequence = 7) {
  proto::MessageMetadata meta;
  meta.set_producer_name(std::move(producer));
  meta.set_sequence_id(sequence);
  meta.set_publish_time(1'700'000'000'000);
  auto& property = *meta.add_properties();
  property.set_key("RECONSUMETIMES");
  property.set_value("2");
  return meta;
}

proto::BaseCommand messageCommand(std::uint64_t consumerId, std::uint64_t ledger,
                                  std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(consumerId);
  message.mutable_message_id()->set_ledgerid(ledger);
  message.mutable_message_id()->set_entryid(entry);
  return command;
}

std::string messageFrame(std::string_view payload, std::uint64_t entry = 34) {
  std::string out;
  appendPayloadFrame(out, messageCommand(3, 12, entry), metadata(), payload);
  return out;
}

// Decodes everything fed so far; fails the test on an error.
std::vector<Frame> drain(FrameDecoder& decoder) {
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

DecodeError decodeError(std::string_view stream, FrameDecoderOptions options = {}) {
  FrameDecoder decoder(options);
  decoder.feed(stream);
  auto result = decoder.next();
  EXPECT_TRUE(result.hasError()) << "decoded without error";
  return result.hasError() ? result.error() : DecodeError{};
}

// A frame with hand-made parts: [total][commandSize][command][rest].
std::string rawFrame(std::string_view command, std::string_view rest = {}) {
  std::string out;
  wire::appendU32(out, static_cast<std::uint32_t>(4 + command.size() + rest.size()));
  wire::appendU32(out, static_cast<std::uint32_t>(command.size()));
  out.append(command);
  out.append(rest);
  return out;
}

std::string serialized(const google::protobuf::MessageLite& message) {
  return message.SerializePartialAsString();
}

// The payload section after the command, with a correct checksum over `afterChecksum`.
std::string checksummed(std::string_view afterChecksum) {
  std::string out;
  wire::appendU16(out, kChecksumMagic);
  wire::appendU32(out, crc32c(0, afterChecksum.data(), afterChecksum.size()));
  out.append(afterChecksum);
  return out;
}

std::string sized(std::string_view part) {
  std::string out;
  wire::appendU32(out, static_cast<std::uint32_t>(part.size()));
  out.append(part);
  return out;
}

TEST(FrameDecoder, DecodesASimpleCommand) {
  FrameDecoder decoder;
  decoder.feed(encodeFrame(flow(5, 1000)));
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].command.type(), proto::BaseCommand::FLOW);
  EXPECT_EQ(frames[0].command.flow().consumer_id(), 5u);
  EXPECT_EQ(frames[0].command.flow().messagepermits(), 1000u);
  EXPECT_FALSE(frames[0].hasPayload());
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(FrameDecoder, DecodesAPayloadFrame) {
  FrameDecoder decoder;
  decoder.feed(messageFrame("hello"));
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), 1u);
  const Frame& frame = frames[0];
  EXPECT_EQ(frame.command.message().message_id().entryid(), 34u);
  ASSERT_TRUE(frame.hasPayload());
  EXPECT_TRUE(frame.hasChecksum);
  EXPECT_EQ(frame.metadata->producer_name(), "producer-1");
  EXPECT_EQ(frame.metadata->properties(0).value(), "2");
  EXPECT_EQ(frame.payload, "hello");
  EXPECT_FALSE(frame.brokerEntryMetadata);
}

TEST(FrameDecoder, DecodesAFrameSplitAtEveryPossiblePoint) {
  const std::string frame = messageFrame("a payload split in two reads");
  for (std::size_t split = 0; split <= frame.size(); ++split) {
    FrameDecoder decoder;
    decoder.feed(frame.substr(0, split));
    if (split < frame.size()) EXPECT_TRUE(decoder.next().needsMore()) << "split " << split;
    decoder.feed(frame.substr(split));
    auto frames = drain(decoder);
    ASSERT_EQ(frames.size(), 1u) << "split " << split;
    EXPECT_EQ(frames[0].payload, "a payload split in two reads");
  }
}

TEST(FrameDecoder, DecodesAFrameFedOneByteAtATime) {
  const std::string frame = messageFrame("byte by byte");
  FrameDecoder decoder;
  std::vector<Frame> frames;
  for (char c : frame) {
    decoder.feed(&c, 1);
    for (auto& f : drain(decoder)) frames.push_back(std::move(f));
  }
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "byte by byte");
}

TEST(FrameDecoder, DecodesSeveralFramesFromOneRead) {
  std::string stream =
      encodeFrame(ping()) + messageFrame("one", 1) + encodeFrame(pong()) + messageFrame("two", 2);
  stream += messageFrame("three", 3).substr(0, 10);  // and the start of another
  FrameDecoder decoder;
  decoder.feed(stream);
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), 4u);
  EXPECT_EQ(frames[0].command.type(), proto::BaseCommand::PING);
  EXPECT_EQ(frames[1].payload, "one");
  EXPECT_EQ(frames[2].command.type(), proto::BaseCommand::PONG);
  EXPECT_EQ(frames[3].payload, "two");
  EXPECT_EQ(decoder.buffered(), 10u);
  decoder.feed(messageFrame("three", 3).substr(10));
  frames = drain(decoder);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "three");
}

TEST(FrameDecoder, ReadsStraightIntoItsBufferWithPrepareAndCommit) {
  const std::string stream = messageFrame("first") + messageFrame("second");
  FrameDecoder decoder;
  std::vector<Frame> frames;
  for (std::size_t at = 0; at < stream.size(); at += 7) {
    auto space = decoder.prepare(64);
    const std::size_t n = std::min<std::size_t>(7, stream.size() - at);
    std::copy_n(stream.data() + at, n, space.data());
    decoder.commit(n);
    for (auto& f : drain(decoder)) frames.push_back(std::move(f));
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].payload, "first");
  EXPECT_EQ(frames[1].payload, "second");
}

TEST(FrameDecoder, SkipsBrokerEntryMetadataAndExposesIt) {
  proto::BrokerEntryMetadata entry;
  entry.set_broker_timestamp(1'700'000'000'123);
  entry.set_index(41);
  std::string stream;
  appendPayloadFrame(stream, messageCommand(3, 12, 34), entry, metadata(), "behind entry metadata");
  FrameDecoder decoder;
  decoder.feed(stream);
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_TRUE(frames[0].brokerEntryMetadata);
  EXPECT_EQ(frames[0].brokerEntryMetadata->broker_timestamp(), 1'700'000'000'123u);
  EXPECT_EQ(frames[0].brokerEntryMetadata->index(), 41u);
  EXPECT_EQ(frames[0].metadata->producer_name(), "producer-1");
  EXPECT_EQ(frames[0].payload, "behind entry metadata");
}

TEST(FrameDecoder, RejectsAFrameAboveTheMaximumNamingBothSizes) {
  std::string stream;
  wire::appendU32(stream, 104'857'600);
  const auto error = decodeError(stream);
  EXPECT_EQ(error.kind, FrameError::oversize);
  EXPECT_EQ(error.message, "frame size 104857600 exceeds the maximum 5253120");
  EXPECT_FALSE(error.resumable);
}

TEST(FrameDecoder, TheMaximumFollowsTheBrokersMaxMessageSize) {
  const std::string big = messageFrame(std::string(6 * 1024 * 1024, 'x'));
  FrameDecoder decoder;
  decoder.feed(big.substr(0, 4));
  EXPECT_EQ(decoder.next().error().kind, FrameError::oversize);

  FrameDecoder larger;
  larger.setMaxMessageSize(8 * 1024 * 1024);
  EXPECT_EQ(larger.maxFrameSize(), 8u * 1024 * 1024 + kFramePadding);
  larger.feed(big);
  auto frames = drain(larger);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload.size(), 6u * 1024 * 1024);
}

TEST(FrameDecoder, StaysFailedAfterAStreamError) {
  FrameDecoder decoder;
  std::string stream;
  wire::appendU32(stream, 2);  // too small to hold a command size
  decoder.feed(stream + encodeFrame(ping()));
  auto first = decoder.next();
  ASSERT_TRUE(first.hasError());
  EXPECT_EQ(first.error().kind, FrameError::bad_size);
  EXPECT_EQ(first.error().message, "frame size 2 is too small for the command size field");
  EXPECT_TRUE(decoder.failed());
  auto again = decoder.next();
  ASSERT_TRUE(again.hasError());
  EXPECT_EQ(again.error().message, first.error().message);
}

TEST(FrameDecoder, RejectsACommandSizeLargerThanTheFrame) {
  std::string stream;
  wire::appendU32(stream, 8);
  wire::appendU32(stream, 100);
  stream += "abcd";
  const auto error = decodeError(stream);
  EXPECT_EQ(error.kind, FrameError::bad_size);
  EXPECT_EQ(error.message, "command size 100 exceeds the 4 bytes left in a frame of size 8");
  EXPECT_TRUE(error.resumable);
}

TEST(FrameDecoder, ReportsAStreamThatEndsInsideAFrame) {
  const std::string frame = messageFrame("cut short");
  FrameDecoder decoder;
  decoder.feed(frame.substr(0, frame.size() - 3));
  EXPECT_TRUE(decoder.next().needsMore());
  auto error = decoder.finish();
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, FrameError::truncated);
  EXPECT_EQ(error->message, "the stream ended inside a frame: " + std::to_string(frame.size() - 3) +
                                " bytes left over of a frame of size " +
                                std::to_string(frame.size() - 4));
  FrameDecoder clean;
  clean.feed(frame);
  drain(clean);
  EXPECT_FALSE(clean.finish());
}

TEST(FrameDecoder, RejectsACommandThatDoesNotParse) {
  const auto error = decodeError(rawFrame(bytes("ff ff ff ff")));
  EXPECT_EQ(error.kind, FrameError::bad_command);
  EXPECT_EQ(error.message, "command of 4 bytes does not parse");
  EXPECT_TRUE(error.resumable);
}

TEST(FrameDecoder, ReportsAnUnknownCommandTypeSeparately) {
  // type 99 (08 63): a command from a newer protocol version.
  const auto error = decodeError(rawFrame(bytes("08 63")));
  EXPECT_EQ(error.kind, FrameError::unknown_command);
  EXPECT_TRUE(error.resumable);
}

TEST(FrameDecoder, RejectsACommandMissingRequiredFieldsOrItsBody) {
  proto::BaseCommand noBody;
  noBody.set_type(proto::BaseCommand::SEND_RECEIPT);
  auto error = decodeError(rawFrame(serialized(noBody)));
  EXPECT_EQ(error.kind, FrameError::bad_command);
  EXPECT_EQ(error.message, "SEND_RECEIPT command lacks its body");

  // CommandFlow without messagePermits: 08 0b 5a 02 08 05.
  error = decodeError(rawFrame(bytes("08 0b 5a 02 08 05")));
  EXPECT_EQ(error.kind, FrameError::bad_command);
  EXPECT_EQ(error.message, "FLOW command lacks a required field");
}

TEST(FrameDecoder, RejectsAPayloadCommandWithoutPayloadAndStraysAfterASimpleOne) {
  auto error = decodeError(encodeFrame(messageCommand(3, 12, 34)));
  EXPECT_EQ(error.kind, FrameError::truncated);
  EXPECT_EQ(error.message, "MESSAGE (consumer 3, entry 12:34) frame has no payload section");

  error = decodeError(rawFrame(serialized(ping()), "xyz"));
  EXPECT_EQ(error.kind, FrameError::bad_size);
  EXPECT_EQ(error.message, "PING frame has 3 unexpected bytes after its command");
}

TEST(FrameDecoder, RejectsABadMagicNamingIt) {
  const std::string command = serialized(messageCommand(3, 12, 34));
  const auto error = decodeError(rawFrame(command, bytes("1234 00000000 00000000")));
  EXPECT_EQ(error.kind, FrameError::bad_magic);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame's payload section starts with 0x1234, "
            "expected the checksum magic 0x0e01");
  ASSERT_TRUE(error.command);
  EXPECT_EQ(error.command->message().consumer_id(), 3u);
}

TEST(FrameDecoder, AcceptsAPayloadWithoutChecksumWhenAllowed) {
  const std::string command = serialized(messageCommand(3, 12, 34));
  const std::string stream = rawFrame(command, sized(serialized(metadata())) + "no checksum");
  EXPECT_EQ(decodeError(stream).kind, FrameError::bad_magic);

  FrameDecoder lenient(FrameDecoderOptions{.requireChecksum = false});
  lenient.feed(stream);
  auto frames = drain(lenient);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_FALSE(frames[0].hasChecksum);
  EXPECT_EQ(frames[0].payload, "no checksum");
}

TEST(FrameDecoder, ReportsAChecksumMismatchAndGoesOnWithTheNextFrame) {
  std::string bad = messageFrame("payload");
  bad.back() ^= 0x01;  // one flipped bit in the payload
  FrameDecoder decoder;
  decoder.feed(bad + encodeFrame(ping()));
  auto result = decoder.next();
  ASSERT_TRUE(result.hasError());
  const auto& error = result.error();
  EXPECT_EQ(error.kind, FrameError::checksum_mismatch);
  EXPECT_TRUE(error.resumable);
  EXPECT_NE(error.message.find("MESSAGE (consumer 3, entry 12:34) frame fails its checksum: the "
                               "frame says 0x"),
            std::string::npos)
      << error.message;
  ASSERT_TRUE(error.command);
  EXPECT_EQ(error.command->message().message_id().entryid(), 34u);
  EXPECT_EQ(error.toStatus().code, errc::protocol_error);

  auto next = decoder.next();
  ASSERT_TRUE(next.hasFrame());
  EXPECT_EQ(next.frame().command.type(), proto::BaseCommand::PING);
}

TEST(FrameDecoder, SkipsTheChecksumWhenNotVerifying) {
  std::string bad = messageFrame("payload");
  bad.back() ^= 0x01;
  FrameDecoder decoder(FrameDecoderOptions{.verifyChecksum = false});
  decoder.feed(bad);
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].payload, "payloae");
}

TEST(FrameDecoder, RejectsMetadataThatDoesNotParse) {
  const std::string command = serialized(messageCommand(3, 12, 34));
  auto error = decodeError(rawFrame(command, checksummed(sized(bytes("ffff")) + "x")));
  EXPECT_EQ(error.kind, FrameError::bad_metadata);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame has MessageMetadata of 2 bytes that does "
            "not parse");

  proto::MessageMetadata incomplete;
  incomplete.set_producer_name("p");
  error = decodeError(rawFrame(command, checksummed(sized(serialized(incomplete)))));
  EXPECT_EQ(error.kind, FrameError::bad_metadata);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame has MessageMetadata of 3 bytes that does "
            "not parse (a required field is missing)");
}

TEST(FrameDecoder, RejectsSizesInsideThePayloadSectionThatOverrun) {
  const std::string command = serialized(messageCommand(3, 12, 34));
  std::string metadataTooLong;
  wire::appendU32(metadataTooLong, 1000);
  metadataTooLong += "abc";
  auto error = decodeError(rawFrame(command, checksummed(metadataTooLong)));
  EXPECT_EQ(error.kind, FrameError::truncated);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame is truncated: metadata size 1000 exceeds the "
            "3 bytes left");

  error = decodeError(rawFrame(command, bytes("0e01 0000")));
  EXPECT_EQ(error.kind, FrameError::truncated);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame is truncated: the checksum needs 6 bytes, 4 "
            "left");

  error = decodeError(rawFrame(command, bytes("0e02 00000100 0000")));
  EXPECT_EQ(error.kind, FrameError::truncated);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame is truncated: broker entry metadata size 256 "
            "exceeds the 2 bytes left");
}

TEST(FrameDecoder, RejectsBrokerEntryMetadataThatDoesNotParse) {
  const std::string command = serialized(messageCommand(3, 12, 34));
  const std::string rest =
      bytes("0e02") + sized(bytes("ffff")) + checksummed(sized(serialized(metadata())) + "payload");
  const auto error = decodeError(rawFrame(command, rest));
  EXPECT_EQ(error.kind, FrameError::bad_broker_entry_metadata);
  EXPECT_EQ(error.message,
            "MESSAGE (consumer 3, entry 12:34) frame has broker entry metadata of 2 bytes that "
            "does not parse");
}

TEST(FrameDecoder, DecodesEveryCommandTheClientSends) {
  const std::vector<proto::BaseCommand> commands = {
      connect(ConnectRequest::withToken("secret")),
      lookup("persistent://public/default/t", 1),
      partitionedMetadata("persistent://public/default/t", 2),
      subscribe(SubscribeRequest{.topic = "persistent://public/default/t", .subscription = "s"}),
      flow(1, 10),
      ack(1, MessageId(5, 6)),
      redeliver(1),
      seek(1, 3, MessageId(5, 6)),
      getLastMessageId(1, 4),
      closeConsumer(1, 5),
      unsubscribe(1, 6),
      producer(ProducerRequest{.topic = "persistent://public/default/t"}),
      closeProducer(1, 7),
      getTopicsOfNamespace(8, "public/default"),
      authResponse("token", "secret"),
  };
  std::string stream;
  for (const auto& command : commands) appendFrame(stream, command);
  FrameDecoder decoder;
  decoder.feed(stream);
  auto frames = drain(decoder);
  ASSERT_EQ(frames.size(), commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    EXPECT_EQ(frames[i].command.SerializeAsString(), commands[i].SerializeAsString())
        << proto::BaseCommand::Type_Name(commands[i].type());
  }
}

TEST(FrameErrorNames, NameEveryKind) {
  EXPECT_EQ(toString(FrameError::oversize), "oversize");
  EXPECT_EQ(toString(FrameError::checksum_mismatch), "checksum_mismatch");
  EXPECT_EQ(toString(FrameError::bad_broker_entry_metadata), "bad_broker_entry_metadata");
}

}  // namespace
}  // namespace reconsume::detail::protocol
