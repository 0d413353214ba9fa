#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "protocol/batch_ack_tracker.hpp"
#include "protocol/batch_builder.hpp"
#include "protocol/byte_order.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {
namespace {

using namespace std::chrono_literals;

proto::CommandMessage delivery(std::vector<std::int64_t> ackSet = {},
                               std::uint32_t redelivery = 0) {
  proto::CommandMessage command;
  command.set_consumer_id(3);
  command.mutable_message_id()->set_ledgerid(12);
  command.mutable_message_id()->set_entryid(34);
  command.set_redelivery_count(redelivery);
  for (auto word : ackSet) command.add_ack_set(word);
  return command;
}

const EntryContext kEntryContext{.topic = "persistent://public/default/orders-partition-2",
                                 .partition = 2};

SendContext batchContext(proto::CompressionType compression = proto::NONE) {
  return SendContext{.producerName = "java-like-producer",
                     .sequenceId = 100,
                     .publishTimeMs = 1'700'000'000'000,
                     .compression = compression};
}

// Three messages as a Java producer batches them: own properties, keys, event times.
EncodedMessage threeMessageBatch(proto::CompressionType compression = proto::NONE) {
  BatchBuilder builder;
  OutgoingMessage first{.payload = "first", .key = "k1", .orderingKey = "o1"};
  first.properties = {{"RECONSUMETIMES", "1"}};
  first.eventTime = std::chrono::system_clock::time_point(1'600'000'000'001ms);
  OutgoingMessage second{.payload = "second", .key = "azI=", .keyIsBase64 = true};
  second.properties = {{"color", "blue"}, {"size", "L"}};
  OutgoingMessage third{.payload = ""};
  builder.add(first, 100);
  builder.add(second, 101);
  builder.add(third, 102);
  EXPECT_EQ(builder.size(), 3u);
  return builder.finish(batchContext(compression));
}

UnpackedEntry unpack(const proto::CommandMessage& command, const EncodedMessage& entry) {
  UnpackedEntry out;
  const auto status = unpackEntry(command, entry.metadata, entry.payload, kEntryContext, out);
  EXPECT_TRUE(status.ok()) << status.message;
  return out;
}

TEST(BatchBuilder, WritesTheEntryMetadataAJavaProducerWrites) {
  const auto entry = threeMessageBatch();
  const auto& meta = entry.metadata;
  EXPECT_EQ(meta.producer_name(), "java-like-producer");
  EXPECT_EQ(meta.publish_time(), 1'700'000'000'000u);
  EXPECT_TRUE(meta.has_num_messages_in_batch());
  EXPECT_EQ(meta.num_messages_in_batch(), 3);
  EXPECT_EQ(meta.sequence_id(), 100u);
  EXPECT_EQ(meta.highest_sequence_id(), 102u);
  EXPECT_EQ(meta.uncompressed_size(), entry.payload.size());
  EXPECT_FALSE(meta.has_partition_key());  // the keys differ
  // The first message's header: [u32 size][SingleMessageMetadata]["first"].
  const std::uint32_t size = wire::readU32(entry.payload.data());
  proto::SingleMessageMetadata single;
  ASSERT_TRUE(single.ParseFromArray(entry.payload.data() + 4, static_cast<int>(size)));
  EXPECT_EQ(single.payload_size(), 5);
  EXPECT_EQ(single.partition_key(), "k1");
  EXPECT_EQ(single.sequence_id(), 100u);
  EXPECT_EQ(entry.payload.substr(4 + size, 5), "first");
}

TEST(BatchBuilder, PutsASharedKeyOnTheEntryForKeySharedDispatch) {
  BatchBuilder builder;
  builder.add(OutgoingMessage{.payload = "a", .key = "same", .orderingKey = "o"}, 1);
  builder.add(OutgoingMessage{.payload = "b", .key = "same", .orderingKey = "o"}, 2);
  const auto entry = builder.finish(batchContext());
  EXPECT_EQ(entry.metadata.partition_key(), "same");
  EXPECT_EQ(entry.metadata.ordering_key(), "o");
  EXPECT_TRUE(builder.empty());
  EXPECT_EQ(builder.bytes(), 0u);
}

TEST(BatchBuilder, RefusesDelayedMessages) {
  BatchBuilder builder;
  OutgoingMessage delayed{.payload = "later"};
  delayed.deliverAfter = 10s;
  EXPECT_FALSE(BatchBuilder::canBatch(delayed));
  EXPECT_THROW(builder.add(delayed, 1), Error);
  EXPECT_TRUE(builder.empty());
}

TEST(EntryUnpacker, SplitsABatchIntoMessagesWithTheirOwnMetadata) {
  const auto out = unpack(delivery({}, 2), threeMessageBatch());
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(out.batchSize, 3);
  EXPECT_EQ(out.skipped, 0);

  const auto& first = out.messages[0].data;
  EXPECT_EQ(first.payload, "first");
  EXPECT_EQ(first.id, MessageId(12, 34, 2, 0));
  EXPECT_EQ(first.id.batchSize(), 3);
  EXPECT_EQ(first.topic, "persistent://public/default/orders-partition-2");
  EXPECT_EQ(first.properties.toMap(),
            (std::map<std::string, std::string>{{"RECONSUMETIMES", "1"}}));
  EXPECT_EQ(first.partitionKey, "k1");
  EXPECT_FALSE(first.partitionKeyIsBase64);
  EXPECT_EQ(first.orderingKey, "o1");
  EXPECT_EQ(first.eventTimeMs, 1'600'000'000'001u);
  EXPECT_EQ(first.sequenceId, 100u);
  EXPECT_EQ(first.publishTimeMs, 1'700'000'000'000u);
  EXPECT_EQ(first.producerName, "java-like-producer");
  EXPECT_EQ(first.redeliveryCount, 2);

  const auto& second = out.messages[1].data;
  EXPECT_EQ(second.payload, "second");
  EXPECT_EQ(second.id.batchIndex(), 1);
  EXPECT_EQ(second.properties.size(), 2u);
  EXPECT_EQ(second.partitionKey, "azI=");
  EXPECT_TRUE(second.partitionKeyIsBase64);
  EXPECT_FALSE(second.orderingKey);
  EXPECT_FALSE(second.eventTimeMs);
  EXPECT_EQ(second.sequenceId, 101u);

  const auto& third = out.messages[2].data;
  EXPECT_EQ(third.payload, "");
  EXPECT_FALSE(third.partitionKey);
  EXPECT_TRUE(third.properties.empty());
}

// CommandMessage.ack_set: a set bit is an index still to deliver, a clear bit one acknowledged
// before (Pulsar's ConsumerImpl skips an index when `!ackBitSet.get(i)`).
TEST(EntryUnpacker, LeavesOutIndexesTheAckSetMarksAcknowledged) {
  const auto out = unpack(delivery({0b101}), threeMessageBatch());
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[0].data.payload, "first");
  EXPECT_EQ(out.messages[1].data.payload, "");
  EXPECT_EQ(out.messages[1].data.id.batchIndex(), 2);
  EXPECT_EQ(out.skipped, 1);
  // The skipped index counts as acknowledged: acking the two delivered ones completes the entry.
  ASSERT_TRUE(out.tracker);
  EXPECT_TRUE(out.tracker->isAcknowledged(1));
  EXPECT_FALSE(out.tracker->acknowledge(0));
  EXPECT_TRUE(out.tracker->acknowledge(2));
}

TEST(EntryUnpacker, DeliversEveryIndexWithoutAnAckSetOrWithAllBitsSet) {
  EXPECT_EQ(unpack(delivery(), threeMessageBatch()).messages.size(), 3u);
  EXPECT_EQ(unpack(delivery({0b111}), threeMessageBatch()).messages.size(), 3u);
  EXPECT_EQ(unpack(delivery({-1}), threeMessageBatch()).messages.size(), 3u);
  EXPECT_EQ(unpack(delivery({0}), threeMessageBatch()).messages.size(), 0u);
}

TEST(EntryUnpacker, ReadsAckSetWordsBeyondTheFirst) {
  BatchBuilder builder;
  for (int i = 0; i < 70; ++i) builder.add(OutgoingMessage{.payload = std::to_string(i)}, i);
  const auto entry = builder.finish(batchContext());
  // Word 0: only index 3 pending; word 1: indexes 64 and 69 pending.
  const auto out = unpack(delivery({std::int64_t{1} << 3, (1 << 0) | (1 << 5)}), entry);
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(out.messages[0].data.payload, "3");
  EXPECT_EQ(out.messages[1].data.payload, "64");
  EXPECT_EQ(out.messages[2].data.payload, "69");
  // Fewer words than the batch needs: the indexes past them count as acknowledged.
  EXPECT_EQ(unpack(delivery({-1}), entry).messages.size(), 64u);
}

TEST(EntryUnpacker, SkipsCompactedOutMessagesAndKeepsNullFlags) {
  BatchBuilder builder;
  proto::SingleMessageMetadata gone;
  gone.set_compacted_out(true);
  builder.add(gone, "removed by compaction");
  proto::SingleMessageMetadata tombstone;
  tombstone.set_partition_key("k");
  tombstone.set_null_value(true);
  builder.add(tombstone, "");
  proto::SingleMessageMetadata nullKey;
  nullKey.set_null_partition_key(true);
  builder.add(nullKey, "v");
  const auto out = unpack(delivery(), builder.finish(batchContext()));
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.skipped, 1);
  EXPECT_TRUE(out.messages[0].nullValue);
  EXPECT_EQ(out.messages[0].data.partitionKey, "k");
  EXPECT_TRUE(out.messages[1].nullPartitionKey);
  EXPECT_FALSE(out.messages[1].nullValue);
}

// Another client may write properties in any order and a key twice (Java reads the last value);
// and each message of an entry has only its own properties, however many its predecessor had.
TEST(EntryUnpacker, ReadsPropertiesInAnyOrderAndARepeatedKeyAsItsLastValue) {
  BatchBuilder builder;
  proto::SingleMessageMetadata many;
  for (auto [key, value] : {std::pair{"z", "last letter"},
                            {"k", "first"},
                            {"a", "1"},
                            {"k", "second"},
                            {"m", "middle"}}) {
    auto& property = *many.add_properties();
    property.set_key(key);
    property.set_value(value);
  }
  many.set_partition_key("key-of-the-first");
  builder.add(many, "many");
  proto::SingleMessageMetadata one;
  auto& property = *one.add_properties();
  property.set_key("only");
  property.set_value("this");
  builder.add(one, "one");
  builder.add(proto::SingleMessageMetadata(), "none");

  const auto out = unpack(delivery(), builder.finish(batchContext()));
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_EQ(out.messages[0].data.properties.toMap(),
            (std::map<std::string, std::string>{
                {"a", "1"}, {"k", "second"}, {"m", "middle"}, {"z", "last letter"}}));
  EXPECT_EQ(out.messages[1].data.properties.toMap(),
            (std::map<std::string, std::string>{{"only", "this"}}));
  EXPECT_FALSE(out.messages[1].data.partitionKey);
  EXPECT_TRUE(out.messages[2].data.properties.empty());
}

TEST(EntryUnpacker, DecompressesBatchesWithEveryCodec) {
  for (auto codec : {proto::LZ4, proto::ZLIB, proto::ZSTD, proto::SNAPPY}) {
    const auto entry = threeMessageBatch(codec);
    EXPECT_EQ(entry.metadata.compression(), codec);
    const auto out = unpack(delivery(), entry);
    ASSERT_EQ(out.messages.size(), 3u) << proto::CompressionType_Name(codec);
    EXPECT_EQ(out.messages[1].data.payload, "second");
  }
}

TEST(EntryUnpacker, APlainEntryIsOneMessage) {
  OutgoingMessage message{.payload = "single", .key = "k", .orderingKey = "ok"};
  message.properties = {{"a", "b"}};
  message.eventTime = std::chrono::system_clock::time_point(5ms);
  const auto entry = encodeMessage(message, batchContext(proto::LZ4));
  auto meta = entry.metadata;
  meta.set_replicated_from("us-east");
  UnpackedEntry out;
  ASSERT_TRUE(unpackEntry(delivery({}, 1), meta, entry.payload, kEntryContext, out).ok());
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.batchSize, 0);
  EXPECT_FALSE(out.tracker);
  const auto& data = out.messages[0].data;
  EXPECT_EQ(data.payload, "single");
  EXPECT_EQ(data.id, MessageId(12, 34, 2));
  EXPECT_EQ(data.id.batchIndex(), -1);
  EXPECT_EQ(data.properties.at("a"), "b");
  EXPECT_EQ(data.partitionKey, "k");
  EXPECT_EQ(data.orderingKey, "ok");
  EXPECT_EQ(data.eventTimeMs, 5u);
  EXPECT_EQ(data.replicatedFrom, "us-east");
  EXPECT_EQ(data.redeliveryCount, 1);
}

TEST(EntryUnpacker, ABatchOfOneIsStillABatch) {
  BatchBuilder builder;
  builder.add(OutgoingMessage{.payload = "alone"}, 1);
  const auto out = unpack(delivery(), builder.finish(batchContext()));
  ASSERT_EQ(out.messages.size(), 1u);
  EXPECT_EQ(out.messages[0].data.id.batchIndex(), 0);
  EXPECT_EQ(out.batchSize, 1);
}

TEST(EntryUnpacker, RejectsCorruptBatchesNamingTheEntryAndIndex) {
  auto entry = threeMessageBatch();
  UnpackedEntry out;
  auto meta = entry.metadata;

  meta.set_num_messages_in_batch(1000);
  auto status = unpackEntry(delivery(), meta, entry.payload, kEntryContext, out);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_EQ(status.message, "entry 12:34 claims 1000 messages in a batch payload of " +
                                std::to_string(entry.payload.size()) + " bytes");

  meta.set_num_messages_in_batch(4);  // one more than the payload holds
  status = unpackEntry(delivery(), meta, entry.payload, kEntryContext, out);
  EXPECT_EQ(status.message,
            "entry 12:34 message 3 of 4: batch payload ends before its metadata size");
  EXPECT_TRUE(out.messages.empty());

  meta.set_num_messages_in_batch(3);
  std::string damaged = entry.payload;
  wire::writeU32(damaged.data(), 0x7fffffff);
  status = unpackEntry(delivery(), meta, damaged, kEntryContext, out);
  EXPECT_EQ(status.message, "entry 12:34 message 0 of 3: metadata size 2147483647 exceeds the " +
                                std::to_string(damaged.size() - 4) + " bytes left");

  damaged = entry.payload;
  damaged[4] = static_cast<char>(0xff);  // the first SingleMessageMetadata no longer parses
  status = unpackEntry(delivery(), meta, damaged, kEntryContext, out);
  EXPECT_NE(status.message.find("does not parse"), std::string::npos) << status.message;

  meta.set_num_messages_in_batch(0);
  EXPECT_EQ(unpackEntry(delivery(), meta, entry.payload, kEntryContext, out).code,
            errc::protocol_error);
}

TEST(EntryUnpacker, ReportsDecompressionFailuresForTheEntry) {
  auto entry = threeMessageBatch(proto::ZSTD);
  auto meta = entry.metadata;
  meta.set_uncompressed_size(meta.uncompressed_size() + 1);
  UnpackedEntry out;
  const auto status = unpackEntry(delivery(), meta, entry.payload, kEntryContext, out);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_EQ(status.message.rfind("entry 12:34: ZSTD payload", 0), 0u) << status.message;
}

TEST(EntryUnpacker, RefusesEncryptedAndChunkedEntries) {
  auto entry = threeMessageBatch();
  UnpackedEntry out;
  auto meta = entry.metadata;
  auto& key = *meta.add_encryption_keys();
  key.set_key("k");
  key.set_value("v");
  meta.set_encryption_algo("RSA");
  auto status = unpackEntry(delivery(), meta, entry.payload, kEntryContext, out);
  EXPECT_EQ(status.code, errc::unsupported);
  EXPECT_EQ(status.message, "entry 12:34 is encrypted (RSA); reconsume does not decrypt messages");

  meta = entry.metadata;
  meta.set_uuid("producer-7-42");
  meta.set_num_chunks_from_msg(3);
  meta.set_chunk_id(1);
  status = unpackEntry(delivery(), meta, entry.payload, kEntryContext, out);
  EXPECT_EQ(status.code, errc::unsupported);
  EXPECT_EQ(status.message,
            "entry 12:34 is chunk 1 of 3 of message producer-7-42; reconsume does not reassemble "
            "chunked messages");
}

// The whole path a Java producer's batch takes: SEND frame out, MESSAGE frame in, messages out.
TEST(EntryUnpacker, UnpacksABatchThatCameThroughTheFrameDecoder) {
  const auto entry = threeMessageBatch(proto::LZ4);
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  *command.mutable_message() = delivery({0b110});
  proto::BrokerEntryMetadata brokerEntry;
  brokerEntry.set_index(7);
  std::string stream;
  appendPayloadFrame(stream, command, brokerEntry, entry.metadata, entry.payload);

  FrameDecoder decoder;
  decoder.feed(stream);
  auto result = decoder.next();
  ASSERT_TRUE(result.hasFrame()) << result.error().message;
  UnpackedEntry out;
  ASSERT_TRUE(unpackEntry(result.frame(), kEntryContext, out).ok());
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[0].data.payload, "second");
  EXPECT_EQ(out.messages[1].data.id.batchIndex(), 2);

  proto::BaseCommand notMessage;
  notMessage.set_type(proto::BaseCommand::PING);
  Frame ping{.command = notMessage};
  EXPECT_EQ(unpackEntry(ping, kEntryContext, out).message,
            "PING frame is not a MESSAGE with a payload; it carries no entry");
}

TEST(BatchAckTracker, CompletesOnceWhenTheLastIndexIsAcknowledged) {
  BatchAckTracker tracker(3);
  EXPECT_EQ(tracker.remaining(), 3);
  EXPECT_FALSE(tracker.acknowledge(1));
  EXPECT_FALSE(tracker.acknowledge(1));  // twice counts once
  EXPECT_FALSE(tracker.acknowledge(0));
  EXPECT_FALSE(tracker.complete());
  EXPECT_TRUE(tracker.acknowledge(2));
  EXPECT_TRUE(tracker.complete());
  EXPECT_FALSE(tracker.acknowledge(2));
}

TEST(BatchAckTracker, IgnoresIndexesOutsideTheBatch) {
  BatchAckTracker tracker(2);
  EXPECT_FALSE(tracker.acknowledge(-1));
  EXPECT_FALSE(tracker.acknowledge(2));
  EXPECT_FALSE(tracker.isAcknowledged(5));
  EXPECT_EQ(tracker.remaining(), 2);
}

TEST(BatchAckTracker, ProducesTheAckSetForAPartialAcknowledgement) {
  BatchAckTracker tracker(5);
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b11111});
  tracker.acknowledge(0);
  tracker.acknowledge(3);
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b10110});

  BatchAckTracker big(130);
  for (int i = 0; i < 130; ++i) {
    if (i != 64 && i != 129) big.acknowledge(i);
  }
  EXPECT_EQ(big.ackSet(), (std::vector<std::int64_t>{0, 1, 0b10}));
}

TEST(BatchAckTracker, StartsFromTheAckSetTheBrokerSent) {
  const std::vector<std::int64_t> received = {0b0101};  // 0 and 2 pending; 1 and 3 acknowledged
  BatchAckTracker tracker(4, received);
  EXPECT_EQ(tracker.remaining(), 2);
  EXPECT_TRUE(tracker.isAcknowledged(1));
  EXPECT_TRUE(tracker.isAcknowledged(3));
  EXPECT_TRUE(tracker.isAcknowledgedElsewhere(1));
  EXPECT_FALSE(tracker.isAcknowledgedHere(1));
  EXPECT_EQ(tracker.acknowledgedElsewhere(), 2);
  EXPECT_FALSE(tracker.acknowledge(0));
  EXPECT_TRUE(tracker.acknowledge(2));

  const std::vector<std::int64_t> allDone = {0};
  EXPECT_TRUE(BatchAckTracker(4, allDone).complete());
}

// The broker reports an index acknowledged inside a transaction still open as acknowledged: an
// acknowledgement sent in this consumer's name must leave it set, so that an abort brings it back.
TEST(BatchAckTracker, TheAckSetCarriesOnlyThisConsumersOwnAcknowledgements) {
  const std::vector<std::int64_t> received = {0b1101};  // 1 acknowledged elsewhere
  BatchAckTracker tracker(4, received);
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b1111});
  tracker.acknowledge(0);
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b1110});
  tracker.acknowledge(2);
  EXPECT_TRUE(tracker.acknowledge(3));
  EXPECT_TRUE(tracker.complete());
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b0010}) << "index 1 is not ours";
  // Acknowledged here after all (the application held the message): ours from now on.
  EXPECT_FALSE(tracker.acknowledge(1));
  EXPECT_EQ(tracker.acknowledgedElsewhere(), 0);
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0});
}

TEST(BatchAckTracker, AnIndexAcknowledgedElsewhereCanOpenAgainButNotOneAcknowledgedHere) {
  const std::vector<std::int64_t> received = {0b100};  // 0 and 1 acknowledged elsewhere
  BatchAckTracker tracker(3, received);
  tracker.acknowledge(2);
  EXPECT_TRUE(tracker.complete());
  tracker.reopen(1);  // the transaction that acknowledged it aborted
  tracker.reopen(2);  // ours: stays acknowledged
  EXPECT_FALSE(tracker.complete());
  EXPECT_FALSE(tracker.isAcknowledged(1));
  EXPECT_TRUE(tracker.isAcknowledgedHere(2));
  EXPECT_EQ(tracker.remaining(), 1);
  EXPECT_TRUE(tracker.acknowledge(1));
  EXPECT_EQ(tracker.ackSet(), std::vector<std::int64_t>{0b001});
}

}  // namespace
}  // namespace reconsume::detail::protocol
