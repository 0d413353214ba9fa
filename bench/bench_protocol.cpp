// Throughput of the protocol layer: CRC32C (hardware and portable) and frame decoding.
//
//   cmake --build build --target bench_protocol && ./build/bench/bench_protocol
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "protocol/batch_builder.hpp"
#include "protocol/crc32c.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/outgoing.hpp"

namespace {

using namespace reconsume;
using namespace reconsume::detail::protocol;

std::string randomBytes(std::size_t size) {
  std::string bytes(size, '\0');
  std::mt19937_64 random(42);
  for (auto& c : bytes) c = static_cast<char>(random());
  return bytes;
}

// Text-like payloads: what compression sees in practice (random bytes do not compress).
std::string jsonLikePayload(std::size_t size, int seed) {
  std::string text;
  std::mt19937 random(static_cast<unsigned>(seed));
  while (text.size() < size) {
    text += R"({"order":)" + std::to_string(random() % 100000) + R"(,"state":"retry","level":)" +
            std::to_string(random() % 18) + "}";
  }
  text.resize(size);
  return text;
}

void crcBenchmark(benchmark::State& state,
                  std::uint32_t (*crc)(std::uint32_t, const void*, std::size_t) noexcept) {
  const std::string data = randomBytes(static_cast<std::size_t>(state.range(0)));
  std::uint32_t value = 0;
  for (auto _ : state) {
    value = crc(value, data.data(), data.size());
    benchmark::DoNotOptimize(value);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_Crc32cHardware(benchmark::State& state) {
  if (!hasHardwareCrc32c()) {
    state.SkipWithError("no SSE4.2 on this CPU");
    return;
  }
  crcBenchmark(state, &crc32cHardware);
}
BENCHMARK(BM_Crc32cHardware)->Arg(4 << 10)->Arg(1 << 20);

void BM_Crc32cPortable(benchmark::State& state) {
  crcBenchmark(state, &crc32cPortable);
}
BENCHMARK(BM_Crc32cPortable)->Arg(4 << 10)->Arg(1 << 20);

proto::BaseCommand messageCommand(std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(1);
  message.mutable_message_id()->set_ledgerid(4711);
  message.mutable_message_id()->set_entryid(entry);
  return command;
}

// A realistic single-message entry: a 1 KiB payload and the properties a retried message carries.
std::string singleMessageStream(int frames) {
  std::string stream;
  for (int i = 0; i < frames; ++i) {
    OutgoingMessage message{.payload = jsonLikePayload(1024, i),
                            .key = "order-" + std::to_string(i)};
    message.properties = {{"RECONSUMETIMES", "2"},
                          {"DELAY_TIME", "5000"},
                          {"REAL_TOPIC", "persistent://public/default/orders"},
                          {"ORIGIN_MESSAGE_ID", "4711:" + std::to_string(i) + ":-1"}};
    const auto encoded = encodeMessage(message, SendContext{.producerName = "standalone-0-7",
                                                            .sequenceId = std::uint64_t(i),
                                                            .publishTimeMs = 1'700'000'000'000});
    appendPayloadFrame(stream, messageCommand(i), encoded.metadata, encoded.payload);
  }
  return stream;
}

// Java-style batches: 100 messages of 100 bytes per entry, compressed as configured.
std::string batchedStream(int frames, proto::CompressionType compression) {
  std::string stream;
  for (int i = 0; i < frames; ++i) {
    BatchBuilder builder;
    for (int m = 0; m < 100; ++m) {
      OutgoingMessage message{.payload = jsonLikePayload(100, i * 100 + m)};
      message.properties = {{"traceId", std::to_string(i * 100 + m)}};
      builder.add(message, static_cast<std::uint64_t>(i * 100 + m));
    }
    const auto entry = builder.finish(SendContext{.producerName = "java-producer",
                                                  .publishTimeMs = 1'700'000'000'000,
                                                  .compression = compression});
    appendPayloadFrame(stream, messageCommand(i), entry.metadata, entry.payload);
  }
  return stream;
}

// Feeds the stream in 64 KiB reads, as a socket would deliver it, and decodes every frame.
template <typename OnFrame>
void decodeStream(const std::string& stream, OnFrame onFrame) {
  FrameDecoder decoder;
  constexpr std::size_t kRead = 64 * 1024;
  for (std::size_t at = 0; at < stream.size(); at += kRead) {
    decoder.feed(stream.data() + at, std::min(kRead, stream.size() - at));
    for (;;) {
      auto result = decoder.next();
      if (result.needsMore()) break;
      if (result.hasError()) std::abort();
      onFrame(result.frame());
    }
  }
}

void BM_DecodeMessageFrames(benchmark::State& state) {
  const int frames = 1000;
  const std::string stream = singleMessageStream(frames);
  for (auto _ : state) {
    decodeStream(stream, [](Frame& frame) { benchmark::DoNotOptimize(frame.payload.data()); });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * frames);
}
BENCHMARK(BM_DecodeMessageFrames)->Unit(benchmark::kMicrosecond);

// Decoding plus turning each entry into messages (decompression, batch splitting).
void BM_DecodeAndUnpackMessageFrames(benchmark::State& state) {
  const int frames = 1000;
  const std::string stream = singleMessageStream(frames);
  const EntryContext context{.topic = "persistent://public/default/orders"};
  for (auto _ : state) {
    decodeStream(stream, [&](Frame& frame) {
      UnpackedEntry entry;
      if (!unpackEntry(frame, context, entry)) std::abort();
      benchmark::DoNotOptimize(entry.messages.data());
    });
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * frames);
}
BENCHMARK(BM_DecodeAndUnpackMessageFrames)->Unit(benchmark::kMicrosecond);

void BM_DecodeAndUnpackBatchedFrames(benchmark::State& state) {
  const auto compression = static_cast<proto::CompressionType>(state.range(0));
  const int frames = 100;
  const std::string stream = batchedStream(frames, compression);
  const EntryContext context{.topic = "persistent://public/default/orders"};
  for (auto _ : state) {
    decodeStream(stream, [&](Frame& frame) {
      UnpackedEntry entry;
      if (!unpackEntry(frame, context, entry)) std::abort();
      benchmark::DoNotOptimize(entry.messages.data());
    });
  }
  // Bytes as they came off the wire; items are messages, 100 per entry.
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * frames * 100);
  state.SetLabel(proto::CompressionType_Name(compression));
}
BENCHMARK(BM_DecodeAndUnpackBatchedFrames)
    ->Arg(proto::NONE)
    ->Arg(proto::LZ4)
    ->Arg(proto::ZSTD)
    ->Unit(benchmark::kMicrosecond);

void BM_EncodeSendFrame(benchmark::State& state) {
  OutgoingMessage message{.payload = jsonLikePayload(1024, 1), .key = "order-1"};
  message.properties = {{"RECONSUMETIMES", "2"}, {"DELAY_TIME", "5000"}};
  std::string out;
  std::uint64_t sequence = 0;
  for (auto _ : state) {
    out.clear();
    const auto encoded = encodeMessage(
        message, SendContext{.producerName = "p", .sequenceId = sequence++, .publishTimeMs = 1});
    appendSend(out, 1, encoded);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_EncodeSendFrame);

}  // namespace

BENCHMARK_MAIN();
