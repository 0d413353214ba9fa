#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "protocol/crc32c.hpp"

namespace reconsume::detail::protocol {
namespace {

using Crc = std::uint32_t (*)(std::uint32_t, const void*, std::size_t) noexcept;

struct Path {
  const char* name;
  Crc crc;
  bool available;
};

// Every test runs on both the portable and the SSE4.2 implementation.
class Crc32cTest : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!GetParam().available) GTEST_SKIP() << "this CPU has no SSE4.2";
  }
  std::uint32_t crc(const void* data, std::size_t size, std::uint32_t seed = 0) {
    return GetParam().crc(seed, data, size);
  }
  std::uint32_t crc(const std::vector<std::uint8_t>& bytes) {
    return crc(bytes.data(), bytes.size());
  }
};

// RFC 3720 (iSCSI), appendix B.4, and the customary check value of "123456789".
TEST_P(Crc32cTest, MatchesRfc3720Vectors) {
  EXPECT_EQ(crc(std::vector<std::uint8_t>(32, 0x00)), 0x8A9136AAu);
  EXPECT_EQ(crc(std::vector<std::uint8_t>(32, 0xFF)), 0x62A8AB43u);
  std::vector<std::uint8_t> ascending(32), descending(32);
  for (int i = 0; i < 32; ++i) {
    ascending[i] = static_cast<std::uint8_t>(i);
    descending[i] = static_cast<std::uint8_t>(31 - i);
  }
  EXPECT_EQ(crc(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc("123456789", 9), 0xE3069283u);
}

TEST_P(Crc32cTest, RfcIscsiReadCommandPdu) {
  const std::vector<std::uint8_t> pdu = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                         0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                         0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                         0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(crc(pdu), 0xD9963A56u);
}

TEST_P(Crc32cTest, EmptyInputKeepsTheSeed) {
  EXPECT_EQ(crc(nullptr, 0), 0u);
  EXPECT_EQ(crc("", 0, 0xE3069283u), 0xE3069283u);
}

TEST_P(Crc32cTest, ContinuesFromAPreviousResult) {
  const std::string text = "The quick brown fox jumps over the lazy dog";
  const std::uint32_t whole = crc(text.data(), text.size());
  for (std::size_t split = 0; split <= text.size(); ++split) {
    const std::uint32_t first = crc(text.data(), split);
    EXPECT_EQ(crc(text.data() + split, text.size() - split, first), whole) << "split " << split;
  }
}

// Lengths around the 8-byte words and the SSE path's 768-byte rounds, at unaligned offsets,
// against the bit-at-a-time definition.
TEST_P(Crc32cTest, AgreesWithTheBitwiseDefinitionOnRandomData) {
  auto bitwise = [](const std::uint8_t* p, std::size_t n) {
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int bit = 0; bit < 8; ++bit) c = (c >> 1) ^ ((c & 1u) ? 0x82F63B78u : 0u);
    }
    return ~c;
  };
  std::mt19937 random(7);
  std::vector<std::uint8_t> data(5000);
  for (auto& byte : data) byte = static_cast<std::uint8_t>(random());
  for (std::size_t size : {1u, 7u, 8u, 9u, 63u, 767u, 768u, 769u, 1536u, 2311u, 4096u}) {
    for (std::size_t offset : {0u, 1u, 3u, 5u}) {
      EXPECT_EQ(crc(data.data() + offset, size), bitwise(data.data() + offset, size))
          << "size " << size << " offset " << offset;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothPaths, Crc32cTest,
                         ::testing::Values(Path{"portable", &crc32cPortable, true},
                                           Path{"sse42", &crc32cHardware, hasHardwareCrc32c()},
                                           Path{"dispatch", &crc32c, true}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace reconsume::detail::protocol
