// FrameDecoder on malformed frames: commands that do not parse, unknown types, missing bodies,
// bad magic, checksums, metadata and sizes inside the payload section; every client command.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/byte_order.hpp"
#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol_frame_decoder_test_util.hpp"
#include "protocol_test_util.hpp"

namespace reconsume::detail::protocol {
namespace {

using test::bytes;
using test::checksummed;
using test::decodeError;
using test::drain;
using test::messageCommand;
using test::messageFrame;
using test::metadata;
using test::rawFrame;
using test::serialized;
using test::sized;

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
