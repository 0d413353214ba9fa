// Writes the seed corpora of compression_fuzzer.cpp and batch_payload_fuzzer.cpp: batches as a
// producer builds them (BatchBuilder), and each codec's output, in those fuzzers' input formats.
// Usage: reconsume_fuzz_payload_corpus <compression directory> <batch directory>
#include <fstream>
#include <iostream>
#include <string>

#include "protocol/batch_builder.hpp"
#include "protocol/compression.hpp"

using namespace reconsume;
using namespace reconsume::detail::protocol;

namespace {

// The uncompressed payload of a batch of `count` messages with keys, properties and one null
// value and one compacted-out message, as the broker would deliver it.
std::string batchPayload(int count) {
  BatchBuilder builder;
  for (int i = 0; i < count; ++i) {
    proto::SingleMessageMetadata single;
    single.add_properties()->set_key("RECONSUMETIMES");
    single.mutable_properties(0)->set_value(std::to_string(i));
    if (i % 2 == 0) single.set_partition_key("key-" + std::to_string(i));
    if (i == 1) single.set_null_value(true);
    if (i == 3) single.set_compacted_out(true);
    single.set_sequence_id(static_cast<std::uint64_t>(i));
    builder.add(single, i == 1 ? "" : "message " + std::to_string(i));
  }
  return builder
      .finish(
          SendContext{.producerName = "seed", .sequenceId = 0, .publishTimeMs = 1'700'000'000'000})
      .payload;
}

std::string size24(std::size_t size) {
  return {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
          static_cast<char>((size >> 16) & 0xff)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " <compression directory> <batch directory>\n";
    return 2;
  }
  int written = 0;
  auto write = [&](const std::string& directory, const std::string& name,
                   const std::string& bytes) {
    std::ofstream(directory + "/" + name, std::ios::binary) << bytes;
    ++written;
  };
  const std::string compressionDir = argv[1], batchDir = argv[2];
  const char* names[] = {"none", "lz4", "zlib", "zstd", "snappy"};
  const std::string text = "payload payload payload of a message, with some repetition in it";
  const std::string batch = batchPayload(5);

  for (int c = 0; c <= 4; ++c) {
    const auto type = static_cast<proto::CompressionType>(c);
    const std::string name = names[c];
    const std::string codec(1, static_cast<char>(c));
    // compression_fuzzer: [codec][declared size][compressed bytes], and a round trip.
    write(compressionDir, name + "-text", codec + size24(text.size()) + compress(type, text));
    write(compressionDir, name + "-batch", codec + size24(batch.size()) + compress(type, batch));
    write(compressionDir, name + "-roundtrip",
          std::string(1, static_cast<char>(c | 8)) + size24(0) + text);

    // batch_payload_fuzzer: [mode][count][body].
    write(batchDir, name + "-batch", std::string(1, static_cast<char>(c)) + '\5' + batch);
    write(batchDir, name + "-precompressed",
          std::string(1, static_cast<char>(c | 0x20)) + '\5' + size24(batch.size()) +
              compress(type, batch));
    write(batchDir, name + "-single", std::string(1, static_cast<char>(c | 0x10)) + '\1' + text);
  }
  // An ack set with indexes 1, 2 and 4 still pending (Pulsar's convention: a set bit is pending).
  write(batchDir, "ack-set",
        std::string(1, '\x08') + '\5' + std::string("\x16\0\0\0\0\0\0\0", 8) + batch);
  write(batchDir, "single-message-batch", std::string(1, '\0') + '\1' + batchPayload(1));
  write(batchDir, "encrypted", std::string(1, '\x40') + '\5' + batch);
  write(batchDir, "chunk", std::string(1, '\x90') + '\1' + text);
  std::cout << "wrote " << written << " seeds\n";
  return 0;
}
