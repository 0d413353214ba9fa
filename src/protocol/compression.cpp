#include "protocol/compression.hpp"

#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <climits>

#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

using reconsume::detail::Status;

// Level 3 is zstd's default and what Pulsar's Java and C++ clients use.
constexpr int kZstdLevel = 3;

std::string typeName(proto::CompressionType type) {
  const std::string& name = proto::CompressionType_Name(type);
  return name.empty() ? "compression type " + std::to_string(static_cast<int>(type)) : name;
}

Status corrupt(proto::CompressionType type, std::size_t inputSize, const std::string& why) {
  return {errc::protocol_error, typeName(type) + " payload of " + std::to_string(inputSize) +
                                    " bytes does not decompress: " + why};
}

Status sizeMismatch(proto::CompressionType type, std::size_t actual, std::uint32_t declared) {
  return {errc::protocol_error, typeName(type) + " payload decompresses to " +
                                    std::to_string(actual) + " bytes, its metadata says " +
                                    std::to_string(declared)};
}

Status decompressLz4(std::string_view input, std::uint32_t size, std::string& output) {
  if (input.size() > INT_MAX || size > INT_MAX) {
    return corrupt(proto::LZ4, input.size(), "larger than LZ4 can handle");
  }
  output.resize(size);
  const int written = LZ4_decompress_safe(input.data(), output.data(),
                                          static_cast<int>(input.size()), static_cast<int>(size));
  if (written < 0) {
    return corrupt(proto::LZ4, input.size(),
                   "invalid block (or larger than the declared " + std::to_string(size) + ")");
  }
  if (static_cast<std::uint32_t>(written) != size) return sizeMismatch(proto::LZ4, written, size);
  return {};
}

Status decompressZlib(std::string_view input, std::uint32_t size, std::string& output) {
  if (input.size() > UINT_MAX) return corrupt(proto::ZLIB, input.size(), "larger than zlib takes");
  output.resize(size);
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return corrupt(proto::ZLIB, input.size(), "inflateInit failed");
  char sink = 0;  // zlib wants a valid pointer even for zero bytes of room
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(size > 0 ? output.data() : &sink);
  stream.avail_out = size;
  const int result = inflate(&stream, Z_FINISH);
  const auto produced = stream.total_out;
  const std::string why = stream.msg ? stream.msg : "";
  inflateEnd(&stream);
  if (result == Z_STREAM_END) {
    if (produced != size) return sizeMismatch(proto::ZLIB, produced, size);
    return {};
  }
  if (result == Z_BUF_ERROR && stream.avail_in == 0 && produced < size) {
    return corrupt(proto::ZLIB, input.size(),
                   "stream ends early, after " + std::to_string(produced) + " of " +
                       std::to_string(size) + " bytes");
  }
  if (result == Z_BUF_ERROR || result == Z_OK) {
    return corrupt(proto::ZLIB, input.size(),
                   "it holds more than the declared " + std::to_string(size) + " bytes");
  }
  return corrupt(proto::ZLIB, input.size(), why.empty() ? "invalid stream" : why);
}

Status decompressZstd(std::string_view input, std::uint32_t size, std::string& output) {
  output.resize(size);
  const std::size_t written = ZSTD_decompress(output.data(), size, input.data(), input.size());
  if (ZSTD_isError(written)) {
    return corrupt(proto::ZSTD, input.size(), ZSTD_getErrorName(written));
  }
  if (written != size) return sizeMismatch(proto::ZSTD, written, size);
  return {};
}

Status decompressSnappy(std::string_view input, std::uint32_t size, std::string& output) {
  std::size_t length = 0;
  if (!snappy::GetUncompressedLength(input.data(), input.size(), &length)) {
    return corrupt(proto::SNAPPY, input.size(), "invalid length header");
  }
  if (length != size) return sizeMismatch(proto::SNAPPY, length, size);
  output.resize(size);
  if (!snappy::RawUncompress(input.data(), input.size(), output.data())) {
    return corrupt(proto::SNAPPY, input.size(), "invalid stream");
  }
  return {};
}

}  // namespace

Status decompress(proto::CompressionType type, std::string_view input,
                  std::uint32_t uncompressedSize, std::string& output,
                  std::uint32_t maxUncompressedSize) {
  if (type == proto::NONE) {
    output.assign(input);
    return {};
  }
  if (uncompressedSize > maxUncompressedSize) {
    output.clear();
    return {errc::protocol_error, typeName(type) + " payload declares an uncompressed size of " +
                                      std::to_string(uncompressedSize) +
                                      " bytes, above the limit " +
                                      std::to_string(maxUncompressedSize)};
  }
  Status status;
  switch (type) {
    case proto::LZ4:
      status = decompressLz4(input, uncompressedSize, output);
      break;
    case proto::ZLIB:
      status = decompressZlib(input, uncompressedSize, output);
      break;
    case proto::ZSTD:
      status = decompressZstd(input, uncompressedSize, output);
      break;
    case proto::SNAPPY:
      status = decompressSnappy(input, uncompressedSize, output);
      break;
    default:
      status = {errc::unsupported, "unknown " + typeName(type)};
      break;
  }
  if (!status) output.clear();
  return status;
}

std::string compress(proto::CompressionType type, std::string_view input) {
  std::string output;
  switch (type) {
    case proto::NONE:
      output.assign(input);
      break;
    case proto::LZ4: {
      if (input.size() > LZ4_MAX_INPUT_SIZE) {
        throw Error(errc::too_large,
                    "payload of " + std::to_string(input.size()) + " bytes is too large for LZ4");
      }
      const int inputSize = static_cast<int>(input.size());
      output.resize(static_cast<std::size_t>(LZ4_compressBound(inputSize)));
      const int written = LZ4_compress_default(input.data(), output.data(), inputSize,
                                               static_cast<int>(output.size()));
      output.resize(static_cast<std::size_t>(written));
      break;
    }
    case proto::ZLIB: {
      if (input.size() > UINT32_MAX / 2) {
        throw Error(errc::too_large,
                    "payload of " + std::to_string(input.size()) + " bytes is too large for ZLIB");
      }
      uLongf length = compressBound(static_cast<uLong>(input.size()));
      output.resize(length);
      compress2(reinterpret_cast<Bytef*>(output.data()), &length,
                reinterpret_cast<const Bytef*>(input.data()), static_cast<uLong>(input.size()),
                Z_DEFAULT_COMPRESSION);
      output.resize(length);
      break;
    }
    case proto::ZSTD: {
      output.resize(ZSTD_compressBound(input.size()));
      const std::size_t written =
          ZSTD_compress(output.data(), output.size(), input.data(), input.size(), kZstdLevel);
      if (ZSTD_isError(written)) {
        throw Error(errc::too_large,
                    std::string("ZSTD cannot compress the payload: ") + ZSTD_getErrorName(written));
      }
      output.resize(written);
      break;
    }
    case proto::SNAPPY:
      snappy::Compress(input.data(), input.size(), &output);
      break;
    default:
      throw Error(errc::invalid_argument, "cannot compress with unknown " + typeName(type));
  }
  return output;
}

proto::CompressionType toProto(Compression compression) {
  switch (compression) {
    case Compression::none:
      return proto::NONE;
    case Compression::lz4:
      return proto::LZ4;
    case Compression::zlib:
      return proto::ZLIB;
    case Compression::zstd:
      return proto::ZSTD;
    case Compression::snappy:
      return proto::SNAPPY;
  }
  return proto::NONE;
}

}  // namespace reconsume::detail::protocol
