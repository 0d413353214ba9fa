// Incremental frame decoder: feed the bytes as they arrive, pull complete frames out.
//
//   FrameDecoder decoder;
//   auto space = decoder.prepare(64 * 1024);        // read into it...
//   decoder.commit(bytesRead);                      // ...or decoder.feed(data, size)
//   for (;;) {
//     auto result = decoder.next();
//     if (result.needsMore()) break;                // read again
//     if (result.hasError()) { /* close the connection: see below */ }
//     handle(result.frame());
//   }
//
// A frame may be split across any number of reads and one read may hold several frames.
// Every failure is a DecodeError value (frame.hpp), never an exception or a crash, and no input
// makes the decoder's read chunk larger than the maximum frame size plus one read (or 1 MiB).
// Decoded payloads are views into that chunk (Frame::payload shares it), so a frame kept keeps
// its chunk alive; the decoder then reads into a new one.
//
// Corrupt frames. A checksum mismatch (and every other error with `resumable` set) spoils one
// frame only: the decoder has skipped it and can go on. When that frame is a consumer's MESSAGE
// (corrupt_entry.hpp), the consumer discards the entry as the Java client does — acknowledges it
// with a validation error (commands.hpp: discardCorrupt) and reports it — and the connection
// stays up (SPEC.md section 5); any other DecodeError closes the connection.
//
// Payload frames without the checksum magic. Pulsar lets a payload section start directly with
// the metadata size (producers older than protocol v6 wrote no checksum). Every client in use
// today writes one, so by default such a frame is rejected as bad_magic: two bytes that are not
// 0x0e01 there are far more likely damage than an ancient producer. Set
// FrameDecoderOptions::requireChecksum to false to accept them.
//
// Thread safety: a FrameDecoder is not synchronised; use it from one thread (or strand) at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/chunk_pool.hpp"
#include "protocol/frame.hpp"

namespace reconsume::detail::protocol {

struct FrameDecoderOptions {
  std::uint32_t maxFrameSize{kDefaultMaxFrameSize};  // largest totalSize accepted
  bool requireChecksum{true};  // false: accept payload sections without magic 0x0e01
  bool verifyChecksum{true};   // false: skip computing CRC32C (the magic is still parsed)
};

// Decodes one frame body: the totalSize bytes that follow the 4-byte size. Errors it returns are
// resumable (the frame's bounds were known).
// With `owner` (what keeps `body` alive), a payload is a view into it; without, a copy.
DecodeResult decodeFrameBody(std::string_view body, const FrameDecoderOptions& options = {},
                             const std::shared_ptr<const void>& owner = nullptr);

class FrameDecoder {
 public:
  explicit FrameDecoder(FrameDecoderOptions options = {});

  // After CONNECTED: accept frames for the broker's max_message_size (plus kFramePadding).
  void setMaxMessageSize(std::uint32_t maxMessageSize);
  void setMaxFrameSize(std::uint32_t maxFrameSize) { options_.maxFrameSize = maxFrameSize; }
  std::uint32_t maxFrameSize() const { return options_.maxFrameSize; }

  // Appends received bytes.
  void feed(const void* data, std::size_t size);
  void feed(std::string_view bytes) { feed(bytes.data(), bytes.size()); }

  // For reading straight into the decoder: writable room for `size` bytes (valid until the next
  // call on the decoder), then commit(n) with the number of bytes actually read (n <= size).
  std::span<char> prepare(std::size_t size);
  void commit(std::size_t size);

  // The next complete frame, an error, or needsMore() when the buffered bytes hold no complete
  // frame. After a non-resumable error every later call returns that error again.
  DecodeResult next();

  // Bytes received and not yet returned as frames.
  std::size_t buffered() const { return end_ - begin_; }
  bool failed() const { return failure_.has_value(); }
  // At the end of the stream: the truncation error when a partial frame is left over.
  std::optional<DecodeError> finish() const;

 private:
  void makeRoom(std::size_t size);

  // A new read chunk has room for this many frames of the largest size seen (up to kMaxChunk),
  // or for one read: a connection that only ever sees small frames keeps a small chunk.
  static constexpr std::size_t kFramesPerChunk = 4;
  static constexpr std::size_t kMaxChunk = 1024 * 1024;

  // Freed chunks kept for the next ones (chunk_pool.hpp): two cover a consumer that keeps up,
  // whose messages let go of the chunk before last while the decoder fills the next.
  static constexpr std::size_t kKeptChunks = 2;

  FrameDecoderOptions options_;
  std::shared_ptr<ChunkPool> pool_ = std::make_shared<ChunkPool>(kKeptChunks);
  // What is read goes into a chunk that decoded frames share (their payloads are views into it):
  // written only past end_, and reused from its start only once no frame shares it.
  std::shared_ptr<char[]> chunk_;
  std::size_t capacity_{0};
  std::size_t preferredChunk_{0};
  std::size_t begin_{0};  // first byte not yet decoded
  std::size_t end_{0};    // one past the last byte received
  std::optional<DecodeError> failure_;
};

}  // namespace reconsume::detail::protocol
