#include <gtest/gtest.h>

#include <random>
#include <string>

#include "protocol/compression.hpp"
#include "protocol_test_util.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

std::string sampleText(std::size_t size) {
  std::string text;
  std::mt19937 random(11);
  const char* words[] = {"retry ", "topic ", "dead ", "letter ", "queue ", "level "};
  while (text.size() < size) text += words[random() % 6];
  text.resize(size);
  return text;
}

std::string randomBytes(std::size_t size) {
  std::string bytes(size, '\0');
  std::mt19937 random(13);
  for (auto& c : bytes) c = static_cast<char>(random());
  return bytes;
}

class Codec : public ::testing::TestWithParam<proto::CompressionType> {};

TEST_P(Codec, RoundTripsTextBinaryAndEmptyPayloads) {
  for (const std::string& input : {std::string(), std::string("x"), sampleText(1000),
                                   sampleText(300'000), randomBytes(5000)}) {
    const std::string compressed = compress(GetParam(), input);
    std::string output = "old contents";
    const auto status =
        decompress(GetParam(), compressed, static_cast<std::uint32_t>(input.size()), output);
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(output, input) << "size " << input.size();
  }
}

TEST_P(Codec, RejectsAWrongDeclaredSizeEitherWay) {
  const std::string input = sampleText(2000);
  const std::string compressed = compress(GetParam(), input);
  std::string output;
  for (std::uint32_t declared : {1999u, 2001u, 10u}) {
    const auto status = decompress(GetParam(), compressed, declared, output);
    EXPECT_EQ(status.code, errc::protocol_error) << "declared " << declared;
    EXPECT_TRUE(output.empty());
  }
}

TEST_P(Codec, RejectsCorruptInputWithoutCrashing) {
  const std::string input = sampleText(4000);
  const std::string compressed = compress(GetParam(), input);
  std::string output;
  // Cut short, and garbage of several lengths.
  EXPECT_FALSE(
      decompress(GetParam(), compressed.substr(0, compressed.size() / 2), 4000, output).ok());
  EXPECT_FALSE(decompress(GetParam(), "", 4000, output).ok());
  for (std::size_t size : {1u, 7u, 100u, 3000u}) {
    const auto status = decompress(GetParam(), randomBytes(size), 4000, output);
    EXPECT_EQ(status.code, errc::protocol_error) << size;
  }
  // Every single-byte change either fails or still gives exactly the declared size.
  for (std::size_t at = 0; at < compressed.size(); at += 3) {
    std::string damaged = compressed;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    if (decompress(GetParam(), damaged, 4000, output).ok()) EXPECT_EQ(output.size(), 4000u);
  }
}

TEST_P(Codec, RefusesADeclaredSizeAboveTheLimitBeforeAllocating) {
  const std::string compressed = compress(GetParam(), "small");
  std::string output;
  auto status = decompress(GetParam(), compressed, 0xFFFFFFFFu, output);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_NE(status.message.find("uncompressed size of 4294967295 bytes, above the limit 67108864"),
            std::string::npos)
      << status.message;
  status = decompress(GetParam(), compressed, 5, output, 4);
  EXPECT_NE(status.message.find("above the limit 4"), std::string::npos) << status.message;
}

// Found by tests/fuzz/compression_fuzzer.cpp: a declared size above the limit returned before
// `output` was cleared, leaving what the caller had in it, unlike every other failure.
TEST_P(Codec, EveryFailureLeavesTheOutputEmpty) {
  const std::string compressed = compress(GetParam(), "small");
  std::string output = "left over";
  EXPECT_FALSE(decompress(GetParam(), compressed, 5, output, 4).ok());
  EXPECT_EQ(output, "");
  output = "left over";
  EXPECT_FALSE(decompress(GetParam(), "corrupt", 5, output).ok());
  EXPECT_EQ(output, "");
}

INSTANTIATE_TEST_SUITE_P(Pulsar, Codec,
                         ::testing::Values(proto::LZ4, proto::ZLIB, proto::ZSTD, proto::SNAPPY),
                         [](const auto& info) { return proto::CompressionType_Name(info.param); });

// The formats Pulsar's Java client writes, recognised by their first bytes.
TEST(Compression, UsesTheFormatsPulsarUses) {
  const std::string input = sampleText(1000);
  // LZ4 block format: no frame magic (04 22 4d 18) in front.
  EXPECT_NE(compress(proto::LZ4, input).substr(0, 4), test::bytes("04224d18"));
  // zlib stream: CMF 0x78 (deflate, 32 KiB window), and FCHECK making CMF*256+FLG divisible by 31.
  const std::string zlib = compress(proto::ZLIB, input);
  EXPECT_EQ(static_cast<unsigned char>(zlib[0]), 0x78);
  EXPECT_EQ((static_cast<unsigned char>(zlib[0]) * 256 + static_cast<unsigned char>(zlib[1])) % 31,
            0);
  // zstd frame magic 28 b5 2f fd.
  EXPECT_EQ(compress(proto::ZSTD, input).substr(0, 4), test::bytes("28b52ffd"));
  // raw snappy: starts with the uncompressed length as a varint (1000 = e8 07), no stream header.
  EXPECT_EQ(compress(proto::SNAPPY, input).substr(0, 2), test::bytes("e807"));
}

TEST(Compression, NoneCopiesWhateverTheDeclaredSize) {
  std::string output;
  EXPECT_TRUE(decompress(proto::NONE, "as is", 0, output).ok());
  EXPECT_EQ(output, "as is");
  EXPECT_EQ(compress(proto::NONE, "as is"), "as is");
}

TEST(Compression, UnknownTypesAreErrorsNamingTheValue) {
  std::string output = "left over";
  const auto status = decompress(static_cast<proto::CompressionType>(9), "x", 1, output);
  EXPECT_EQ(status.code, errc::unsupported);
  EXPECT_EQ(status.message, "unknown compression type 9");
  EXPECT_EQ(output, "");
  EXPECT_THROW(compress(static_cast<proto::CompressionType>(9), "x"), Error);
}

TEST(Compression, MapsThePublicEnum) {
  EXPECT_EQ(toProto(Compression::none), proto::NONE);
  EXPECT_EQ(toProto(Compression::lz4), proto::LZ4);
  EXPECT_EQ(toProto(Compression::zlib), proto::ZLIB);
  EXPECT_EQ(toProto(Compression::zstd), proto::ZSTD);
  EXPECT_EQ(toProto(Compression::snappy), proto::SNAPPY);
}

}  // namespace
}  // namespace reconsume::detail::protocol
