// libFuzzer target: entry unpacking (entry_unpacker.hpp) straight from the payload bytes, without
// the frame decoder's checksum in the way: batch splitting ([u32 size][SingleMessageMetadata]
// [payload] ...), every codec in front of it, batch-index acknowledgement sets, and the
// encrypted and chunked entries that are refused.
//
// Input: [mode][count][8 bytes ack set word, when mode bit 3][3 bytes declared size, when mode
// bit 5][body]. Mode bits:
//   0-2  the codec, 0..4 = NONE, LZ4, ZLIB, ZSTD, SNAPPY (5..7 read as NONE);
//   3    CommandMessage.ack_set has the one word given;
//   4    not a batch: no num_messages_in_batch (else it is `count`, 0..255);
//   5    the body is already compressed and the declared uncompressed size is given; clear, the
//        body is the uncompressed batch, compressed here, so that the fuzzer works on the batch
//        format behind every codec instead of on the codec's own format;
//   6    an encryption key is set;  7  the entry is chunk 0 of 2.
//
// Besides "no crash, no sanitizer report", it aborts when
//   - a failure leaves messages or a tracker, or has a code other than protocol_error
//     (unsupported: only for encrypted or chunked entries);
//   - a plain entry does not give exactly one message with the uncompressed body;
//   - a batch's size is not `count`, delivered plus skipped messages are not `count`, delivered
//     indexes are not increasing or one's ack_set bit is clear, ids do not carry the entry's
//     ledger, entry, partition and batch size, payloads add up to more than the body, or
//     acknowledging every delivered message does not complete the batch exactly at the last one.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "protocol/entry_unpacker.hpp"

using namespace reconsume::detail::protocol;
namespace proto = reconsume::proto;
using reconsume::errc;
using reconsume::fuzz::check;

namespace {

constexpr std::uint32_t kLimit = 1 << 20;
constexpr std::int64_t kLedger = 77, kEntry = 5;
constexpr std::int32_t kPartition = 3;

bool bitSet(const proto::CommandMessage& command, int index) {
  if (command.ack_set_size() == 0) return true;
  if (index >= 64) return false;
  return ((static_cast<std::uint64_t>(command.ack_set(0)) >> index) & 1u) != 0;
}

void checkBatch(const proto::CommandMessage& command, int count, std::size_t bodySize,
                UnpackedEntry& entry) {
  check(entry.batchSize == count, "batch size is not num_messages_in_batch");
  check(entry.tracker && entry.tracker->batchSize() == count, "tracker of another size");
  check(entry.messages.size() + static_cast<std::size_t>(entry.skipped) ==
            static_cast<std::size_t>(count),
        "delivered + skipped is not the batch size");
  int previous = -1;
  std::size_t bytes = 0;
  for (const auto& message : entry.messages) {
    const auto& id = message.data.id;
    check(id.ledger() == kLedger && id.entry() == kEntry && id.partition() == kPartition,
          "a message id of another entry");
    check(id.batchSize() == count, "a message id with another batch size");
    check(id.batchIndex() > previous && id.batchIndex() < count, "batch indexes out of order");
    check(bitSet(command, id.batchIndex()), "a message acknowledged before is delivered");
    previous = id.batchIndex();
    bytes += message.data.payload.size();
  }
  check(bytes <= bodySize, "payloads larger than the batch");
  for (std::size_t i = 0; i < entry.messages.size(); ++i) {
    check(!entry.tracker->complete(), "batch complete before every message is acknowledged");
    const bool last = entry.tracker->acknowledge(entry.messages[i].data.id.batchIndex());
    check(last == (i + 1 == entry.messages.size()), "batch completes at the wrong message");
  }
  check(entry.tracker->complete(), "batch not complete after every message is acknowledged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t mode = data[0];
  const int count = data[1];
  std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);

  proto::CommandMessage command;
  command.set_consumer_id(1);
  command.mutable_message_id()->set_ledgerid(kLedger);
  command.mutable_message_id()->set_entryid(kEntry);
  if (mode & 0x08) {
    if (rest.size() < 8) return 0;
    std::int64_t word = 0;
    std::memcpy(&word, rest.data(), 8);
    command.add_ack_set(word);
    rest.remove_prefix(8);
  }

  proto::MessageMetadata metadata;
  metadata.set_producer_name("fuzz");
  metadata.set_sequence_id(1);
  metadata.set_publish_time(1'700'000'000'000);
  const int codec = mode & 7;
  const auto type = static_cast<proto::CompressionType>(codec <= 4 ? codec : 0);
  metadata.set_compression(type);
  if (!(mode & 0x10)) metadata.set_num_messages_in_batch(count);
  if (mode & 0x40) metadata.add_encryption_keys()->set_key("k");
  if (mode & 0x80) {
    metadata.set_num_chunks_from_msg(2);
    metadata.set_chunk_id(0);
  }

  std::string payload;
  std::string_view body = rest;  // uncompressed, when known
  if (mode & 0x20) {
    if (rest.size() < 3) return 0;
    metadata.set_uncompressed_size(static_cast<std::uint8_t>(rest[0]) |
                                   static_cast<std::uint8_t>(rest[1]) << 8 |
                                   static_cast<std::uint8_t>(rest[2]) << 16);
    rest.remove_prefix(3);
    payload.assign(rest);
    body = {};
  } else {
    metadata.set_uncompressed_size(static_cast<std::uint32_t>(rest.size()));
    payload = compress(type, rest);
  }

  const EntryContext context{.topic = "persistent://public/default/fuzz-partition-3",
                             .partition = kPartition,
                             .maxUncompressedSize = kLimit};
  UnpackedEntry entry;
  entry.skipped = 99;  // whatever was there before must not show through
  const auto status = unpackEntry(command, metadata, payload, context, entry);
  if (!status.ok()) {
    check(entry.messages.empty() && !entry.tracker && entry.batchSize == 0 && entry.skipped == 0,
          "a failed entry leaves messages behind");
    const bool refused = (mode & 0xc0) != 0;
    check(status.code == errc::protocol_error || (refused && status.code == errc::unsupported),
          "a failed entry has an unexpected code");
    return 0;
  }
  check((mode & 0xc0) == 0, "an encrypted or chunked entry is unpacked");
  check(type == proto::NONE || metadata.uncompressed_size() <= kLimit, "above the limit");
  if (mode & 0x10) {
    check(entry.messages.size() == 1 && !entry.tracker, "a plain entry is not one message");
    if (!(mode & 0x20) || type == proto::NONE) {
      check(entry.messages[0].data.payload == (mode & 0x20 ? payload : std::string(body)),
            "a plain entry's payload is not its body");
    }
    return 0;
  }
  checkBatch(command, count,
             (mode & 0x20) ? metadata.uncompressed_size() + payload.size() : body.size(), entry);
  return 0;
}
