#include <gtest/gtest.h>

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/outgoing.hpp"
#include "protocol_test_util.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

using test::bytes;
using test::hex;

// BaseCommand{type: PING} is 08 12 (field 1, varint 18) then 92 01 00 (field 18, empty
// CommandPing); the frame adds totalSize 9 and commandSize 5.
TEST(FrameEncoder, PingFrameByteForByte) {
  EXPECT_EQ(hex(encodeFrame(ping())), hex(bytes("00000009 00000005 0812 920100")));
}

TEST(FrameEncoder, PongFrameByteForByte) {
  // field 19 (pong): tag (19 << 3 | 2) = 154 = 9a 01.
  EXPECT_EQ(hex(encodeFrame(pong())), hex(bytes("00000009 00000005 0813 9a0100")));
}

// A SEND of payload "hi" from producer 1, sequence id 0, by producer "p" at publish time 1000.
//   command   08 06 | 32 04 [08 01 10 00]                     8 bytes
//   metadata  0a 01 70 | 10 00 | 18 e8 07                     8 bytes
//   checksum  CRC32C of [00000008][metadata]["hi"], 14 bytes: 0x16f2f2f7, computed with a
//             bit-at-a-time CRC32C (polynomial 0x82F63B78) outside this code base.
//   totalSize 4 + 8 + 2 + 4 + 4 + 8 + 2 = 32
TEST(FrameEncoder, SendFrameByteForByte) {
  OutgoingMessage message;
  message.payload = "hi";
  SendContext context;
  context.producerName = "p";
  context.sequenceId = 0;
  context.publishTimeMs = 1000;
  const std::string frame = encodeSend(1, encodeMessage(message, context));
  EXPECT_EQ(hex(frame), hex(bytes("00000020 00000008 0806320408011000"
                                  "0e01 16f2f2f7"
                                  "00000008 0a0170 1000 18e807"
                                  "6869")));
}

TEST(FrameEncoder, AppendsSeveralFramesToOneBuffer) {
  std::string out;
  appendFrame(out, ping());
  appendFrame(out, pong());
  EXPECT_EQ(out, encodeFrame(ping()) + encodeFrame(pong()));
}

TEST(FrameEncoder, RefusesACommandMissingRequiredFieldsNamingThem) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::FLOW);
  command.mutable_flow()->set_consumer_id(3);  // messagePermits missing
  try {
    encodeFrame(command);
    FAIL() << "encoded an incomplete command";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("cannot encode FLOW: a required field is not set"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace reconsume::detail::protocol
