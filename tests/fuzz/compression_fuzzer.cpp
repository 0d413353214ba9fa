// libFuzzer target: every payload codec (compression.hpp: LZ4, ZLIB, ZSTD, SNAPPY, and NONE) on
// arbitrary bytes, as a broker delivers them with MessageMetadata.compression and
// uncompressed_size taken from the frame.
//
// Input: [mode byte][3 bytes declared size, little endian][payload]. Mode bits 0-2 pick the codec:
// 0..4 are NONE, LZ4, ZLIB, ZSTD, SNAPPY; 5..7 are unknown types. Bit 3 set: round trip instead —
// the payload is compressed with the codec and must decompress to itself.
//
// Besides "no crash, no sanitizer report", it aborts when
//   - a successful decompression's output does not have the declared size (NONE: is not the
//     input), or decompressed more than the limit;
//   - a failure leaves output behind, or has another code than protocol_error (unsupported for
//     an unknown type within the size limit);
//   - what decompressed, compressed again, does not decompress to the same bytes;
//   - in round-trip mode, compress then decompress does not give the input back.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "protocol/compression.hpp"

using namespace reconsume::detail::protocol;
namespace proto = reconsume::proto;
using reconsume::errc;
using reconsume::fuzz::check;

namespace {

// Small enough that a declared size above it is common; a 24-bit size reaches 16 MiB.
constexpr std::uint32_t kLimit = 1 << 20;

void roundTrip(proto::CompressionType type, std::string_view input) {
  const std::string compressed = compress(type, input);
  std::string output = "junk";
  const auto status =
      decompress(type, compressed, static_cast<std::uint32_t>(input.size()), output, UINT32_MAX);
  check(status.ok(), "a compressed payload does not decompress");
  check(output == input, "a compressed payload decompresses to other bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const int codec = data[0] & 7;
  const auto type = static_cast<proto::CompressionType>(codec);
  const bool known = codec <= 4;
  const std::uint32_t declared = data[1] | (data[2] << 8) | (data[3] << 16);
  const std::string_view payload(reinterpret_cast<const char*>(data + 4), size - 4);

  if (data[0] & 8) {
    if (known) roundTrip(type, payload);
    return 0;
  }

  std::string output = "left over from before";
  const auto status = decompress(type, payload, declared, output, kLimit);
  if (!status.ok()) {
    check(output.empty(), "a failed decompression leaves output");
    // The size limit is checked before the type.
    check(status.code == errc::protocol_error ||
              (!known && declared <= kLimit && status.code == errc::unsupported),
          "a failed decompression has an unexpected code");
    check(known || status.code == errc::unsupported || declared > kLimit,
          "an unknown codec fails for another reason");
    check(!status.message.empty(), "a failed decompression says nothing");
    return 0;
  }
  check(known, "an unknown codec decompresses");
  if (type == proto::NONE) {
    check(output == payload, "NONE does not copy");
    return 0;
  }
  check(declared <= kLimit, "decompressed above the limit");
  check(output.size() == declared, "decompressed to another size than declared");
  roundTrip(type, output);
  return 0;
}
