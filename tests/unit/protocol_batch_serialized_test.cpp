// BatchBuilder's serialized form: a producer serializes each message's batch metadata on the
// sender's thread and appends the sequence id when the entry is built; the entry must be byte for
// byte what the object form writes.
#include <gtest/gtest.h>

#include "protocol/batch_builder.hpp"
#include "protocol/entry_unpacker.hpp"

namespace reconsume::detail::protocol {
namespace {

using namespace std::chrono_literals;

const SendContext kSendContext{.producerName = "p", .sequenceId = 0, .publishTimeMs = 5};

TEST(BatchBuilder, SerializedMetadataMakesTheSameBytesAsTheObjectForm) {
  OutgoingMessage a{.payload = "first", .key = "k1", .orderingKey = "o1"};
  a.properties = {{"RECONSUMETIMES", "1"}};
  a.eventTime = std::chrono::system_clock::time_point(1'600'000'000'001ms);
  OutgoingMessage b{.payload = "second", .key = "azI=", .keyIsBase64 = true};
  b.properties = {{"color", "blue"}, {"size", "L"}};
  OutgoingMessage c{.payload = ""};
  BatchBuilder objects, serialized;
  std::uint64_t sequenceId = 100;
  for (auto* m : {&a, &b, &c}) {
    objects.add(*m, sequenceId);
    serialized.addSerialized(BatchBuilder::serializedMetadata(*m), sequenceId++, m->payload,
                             {&m->key, m->keyIsBase64, &m->orderingKey});
  }
  auto expected = objects.finish(kSendContext);
  auto got = serialized.finish(kSendContext);
  EXPECT_EQ(got.payload, expected.payload);
  EXPECT_EQ(got.metadata.SerializeAsString(), expected.metadata.SerializeAsString());
}

TEST(BatchBuilder, SerializedMetadataIsProtobufsOwnSerialization) {
  // Lengths and sizes that take several varint bytes, an empty value, an event time at 0.
  OutgoingMessage m{.payload = std::string(70'000, 'p'), .key = std::string(200, 'k')};
  m.properties = {{"RECONSUME_HISTORY", std::string(5'000, 'h')}, {"empty", ""}, {"a", "b"}};
  m.orderingKey = std::string(130, 'o');
  m.eventTime = std::chrono::system_clock::time_point(0ms);
  for (bool base64 : {false, true}) {
    m.keyIsBase64 = base64;
    auto object = BatchBuilder::singleMetadata(m);
    object.set_payload_size(static_cast<std::int32_t>(m.payload.size()));
    EXPECT_EQ(std::string_view(BatchBuilder::serializedMetadata(m)), object.SerializeAsString())
        << base64;
  }
  OutgoingMessage bare{.payload = "x"};
  auto object = BatchBuilder::singleMetadata(bare);
  object.set_payload_size(1);
  EXPECT_EQ(std::string_view(BatchBuilder::serializedMetadata(bare)), object.SerializeAsString());
}

// finishFrame() writes the frame around the batch; the bytes are those of encodeSend(finish()).
TEST(BatchBuilder, AFrameWrittenInPlaceIsTheFrameOfTheEntry) {
  auto fill = [](BatchBuilder& builder) {
    OutgoingMessage m{.payload = std::string(3000, 'x'), .key = "k"};
    m.properties = {{"RECONSUMETIMES", "2"}};
    for (std::uint64_t id = 7; id < 10; ++id) {
      builder.addSerialized(BatchBuilder::serializedMetadata(m), id, m.payload, {&m.key});
    }
  };
  const std::string longName(2'000, 'p');  // a head larger than the headroom: copied instead
  for (const auto& name : {std::string("standalone-0-3"), longName}) {
    for (auto compression : {proto::NONE, proto::LZ4}) {
      SendContext context{.producerName = name, .publishTimeMs = 5, .compression = compression};
      BatchBuilder plain, inPlace(BatchBuilder::kFrameHeadroom);
      fill(plain);
      fill(inPlace);
      const auto expected = encodeSend(42, plain.finish(context, 1'700'000'000'000));
      EXPECT_EQ(inPlace.finishFrame(42, context, 1'700'000'000'000), expected)
          << name.size() << " " << compression;
      // The builder starts afresh, its headroom again in front.
      fill(plain);
      fill(inPlace);
      EXPECT_EQ(inPlace.finishFrame(42, context), encodeSend(42, plain.finish(context)));
    }
  }
}

TEST(BatchBuilder, ASequenceIdOfSeveralVarintBytesReadsBack) {
  BatchBuilder builder;
  OutgoingMessage m{.payload = "x"};
  builder.addSerialized(BatchBuilder::serializedMetadata(m), 1ull << 40, m.payload, {});
  builder.addSerialized(BatchBuilder::serializedMetadata(m), (1ull << 40) + 1, m.payload, {});
  auto entry = builder.finish(kSendContext);
  EXPECT_EQ(entry.metadata.sequence_id(), 1ull << 40);
  EXPECT_EQ(entry.metadata.highest_sequence_id(), (1ull << 40) + 1);
  proto::CommandMessage command;
  UnpackedEntry out;
  auto status = unpackEntry(command, entry.metadata, entry.payload,
                            {.topic = "persistent://public/default/t"}, out);
  ASSERT_TRUE(status.ok()) << status.message;
  ASSERT_EQ(out.messages.size(), 2u);
  EXPECT_EQ(out.messages[1].data.payload, "x");
}

}  // namespace
}  // namespace reconsume::detail::protocol
