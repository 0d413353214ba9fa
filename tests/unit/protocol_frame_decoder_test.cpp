// FrameDecoder on streams: simple and payload frames, frames split or fed a byte at a time,
// several frames in one read, broker entry metadata, the frame size limit, stream errors.
#include <gtest/gtest.h>

#include <algorithm>
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

using test::decodeError;
using test::drain;
using test::messageCommand;
using test::messageFrame;
using test::metadata;

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

// Payloads are views into the chunk the frame was read into. One kept while many more frames are
// read (several chunks' worth) keeps its bytes: the decoder never writes over what a frame shares.
TEST(FrameDecoder, APayloadKeptWhileMoreFramesAreReadKeepsItsBytes) {
  FrameDecoder decoder;
  decoder.feed(messageFrame("kept payload", 1));
  auto first = drain(decoder);
  ASSERT_EQ(first.size(), 1u);
  const std::string bulk(60 * 1024, 'x');
  for (std::uint64_t entry = 2; entry < 40; ++entry) {  // about 2.3 MiB: past several chunks
    const auto frame = messageFrame(bulk, entry);
    for (std::size_t at = 0; at < frame.size(); at += 64 * 1024) {  // as a connection reads
      const auto n = std::min<std::size_t>(64 * 1024, frame.size() - at);
      auto space = decoder.prepare(64 * 1024);
      std::copy_n(frame.data() + at, n, space.data());
      decoder.commit(n);
      for (auto& later : drain(decoder)) ASSERT_EQ(later.payload, bulk);
    }
  }
  EXPECT_EQ(first[0].payload, "kept payload");
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

}  // namespace
}  // namespace reconsume::detail::protocol
