// Payload compression as Pulsar does it: LZ4 (raw block format, no frame header), ZLIB (a zlib
// stream with its header), ZSTD (a zstd frame) and SNAPPY (raw snappy). The decompressed size
// comes from MessageMetadata.uncompressed_size.
//
// decompress() is total: a corrupt stream, a stream that does not decompress to exactly the
// declared size, or a declared size above the limit gives a Status, never a crash, and the
// output buffer is never larger than the limit.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "PulsarApi.pb.h"
#include "common/status.hpp"
#include "reconsume/producer_options.hpp"

namespace reconsume::detail::protocol {

// Decompressed payloads larger than this are refused unless the caller passes a larger limit.
// Pulsar limits the compressed size (5 MiB by default); a batch may decompress to much more.
inline constexpr std::uint32_t kDefaultMaxUncompressedSize = 64 * 1024 * 1024;

// Replaces `output` with the decompressed `input`; after a failure it is empty. NONE copies.
// Errors: errc::protocol_error (corrupt input, size mismatch, size above `maxUncompressedSize`) and
// errc::unsupported (a compression type this library does not know), each naming the values
// involved.
reconsume::detail::Status decompress(
    proto::CompressionType type, std::string_view input, std::uint32_t uncompressedSize,
    std::string& output, std::uint32_t maxUncompressedSize = kDefaultMaxUncompressedSize);

// `input` compressed with `type` (NONE: a copy). Throws Error(errc::too_large) for inputs the
// codec cannot take (over 2 GiB), Error(errc::invalid_argument) for an unknown type.
std::string compress(proto::CompressionType type, std::string_view input);

proto::CompressionType toProto(Compression compression);

}  // namespace reconsume::detail::protocol
