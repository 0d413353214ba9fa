// protocol/wire_size.hpp: the count of a message against a broker's maximum size, and the bound
// that lets the embedded broker skip encoding a message far under the limit.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

#include "protocol/outgoing.hpp"
#include "protocol/wire_size.hpp"

namespace reconsume::detail::protocol {
namespace {

OutgoingData message(std::string payload) {
  OutgoingData data;
  data.payload = Bytes::adopt(std::move(payload));
  return data;
}

TEST(WireSize, IsTheEncodedMetadataPlusTheCompressedPayload) {
  auto data = message(std::string(100000, 'z'));
  data.properties = Properties{{"tenant", "acme"}, {"trace", "abc"}};
  const auto plain = wireSize(data, "standalone-0-7", 3, 1764000000000, Compression::none);
  const auto encoded = encodeMessage(data, {"standalone-0-7", 3, 1764000000000, proto::NONE});
  EXPECT_EQ(plain, encoded.metadata.ByteSizeLong() + 100000);
  EXPECT_GT(plain, data.contentBytes()) << "the metadata counts too";
  const auto lz4 = wireSize(data, "standalone-0-7", 3, 1764000000000, Compression::lz4);
  EXPECT_LT(lz4, 100000u / 10) << "a run of one byte compresses to a fraction";
}

TEST(WireSize, TheBoundIsNeverBelowTheCountForAnyCodecEvenOnIncompressibleBytes) {
  std::mt19937 random(7);
  std::string noise(65536, '\0');
  for (auto& byte : noise) byte = static_cast<char>(random());
  for (const auto& payload : {noise, std::string(65536, 'a'), std::string()}) {
    auto data = message(payload);
    data.key = "customer-42";
    data.orderingKey = "o";
    data.eventTime = std::chrono::system_clock::time_point(std::chrono::milliseconds(1));
    data.deliverAfter = std::chrono::milliseconds(12345678);
    PropertiesWriter properties;
    for (int i = 0; i < 40; ++i) properties.add("key-" + std::to_string(i), std::string(i, 'v'));
    data.properties = std::move(properties).finish();
    for (auto codec : {Compression::none, Compression::lz4, Compression::zlib, Compression::zstd,
                       Compression::snappy}) {
      const std::string name(200, 'p');
      // The longest publish time a valid message can have: deliver_at_time (publish time plus
      // deliverAfter) must still be a signed 64-bit value.
      const auto latestPublishMs = static_cast<std::uint64_t>(
          std::numeric_limits<std::int64_t>::max() - data.deliverAfter->count());
      EXPECT_GE(wireSizeAtMost(data, name, codec),
                wireSize(data, name, ~std::uint64_t{0}, latestPublishMs, codec))
          << "codec " << static_cast<int>(codec) << ", payload of " << payload.size();
    }
  }
}

}  // namespace
}  // namespace reconsume::detail::protocol
