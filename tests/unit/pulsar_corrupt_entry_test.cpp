// Damaged entries (SPEC.md section 5): a consumer discards them — acknowledges them with
// CommandAck.validation_error and logs them, as the Java client does — and the connection every
// producer and consumer on that broker shares stays up; an entry that is not damaged but that this
// client cannot read (encrypted, or a chunk) is left unacknowledged instead. First the sans-I/O
// part (which frames are one damaged entry, and the validation error each gets), then a consumer
// against a scripted broker.
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/commands.hpp"
#include "protocol/compression.hpp"
#include "protocol/corrupt_entry.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using detail::protocol::corruptEntryOf;
using detail::protocol::FrameDecoder;

proto::BaseCommand messageCommand(std::uint64_t consumerId, std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(9);
  command.mutable_message()->mutable_message_id()->set_entryid(entry);
  return command;
}

std::string messageFrame(std::uint64_t consumerId, std::uint64_t entry, const std::string& payload,
                         proto::MessageMetadata metadata = {}) {
  metadata.set_producer_name("p");
  metadata.set_sequence_id(entry);
  metadata.set_publish_time(1'700'000'000'000);
  std::string out;
  detail::protocol::appendPayloadFrame(out, messageCommand(consumerId, entry), metadata, payload);
  return out;
}

std::string withFlippedLastByte(std::string frame) {
  frame.back() ^= 0x01;  // the payload no longer matches its CRC32C
  return frame;
}

// The errors a client logs (its logger runs on any thread).
class LoggedErrors {
 public:
  Logger logger() {
    return [this](LogLevel level, std::string_view text) {
      std::lock_guard lock(mutex_);
      if (level >= LogLevel::error) texts_.emplace_back(text);
    };
  }
  std::vector<std::string> taken() {
    std::lock_guard lock(mutex_);
    return std::exchange(texts_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> texts_;
};

// A client of the scripted broker at `url` whose errors go to `errors`.
Client scriptedClient(const std::string& url, LoggedErrors& errors) {
  ClientOptions options;
  options.operationTimeout = 10s;
  options.logger = errors.logger();
  return Client::connect(url, options);
}

// A consumer of the scripted topic on `subscription`, with room for ten messages.
Consumer subscribeScripted(Client& client, const std::string& subscription) {
  ConsumerOptions options;
  options.topics = {pulsar_test::answers::kScriptedTopic};
  options.subscription = subscription;
  options.receiverQueueSize = 10;
  return client.subscribe(options);
}

// What `consumer` receives, each message within 10 s, until `count` or one does not come.
std::vector<Message> receiveUpTo(Consumer& consumer, std::size_t count) {
  std::vector<Message> received;
  while (received.size() < count) {
    auto message = consumer.receive(10s);
    if (!message) break;
    received.push_back(*message);
  }
  return received;
}

std::vector<std::string> payloadsOf(const std::vector<Message>& messages) {
  std::vector<std::string> payloads;
  for (const auto& message : messages) payloads.emplace_back(message.data());
  return payloads;
}

detail::protocol::DecodeResult decodeOne(const std::string& bytes) {
  FrameDecoder decoder;
  decoder.feed(bytes);
  return decoder.next();
}

TEST(CorruptEntry, AChecksumMismatchIsOneDamagedEntryOfItsConsumer) {
  auto result = decodeOne(withFlippedLastByte(messageFrame(7, 3, "payload")));
  ASSERT_TRUE(result.hasError());
  auto entry = corruptEntryOf(result.error());
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->consumerId, 7u);
  EXPECT_EQ(entry->id, MessageId(9, 3));
  EXPECT_EQ(entry->reason, proto::CommandAck::ChecksumMismatch);
  EXPECT_NE(entry->why.find("checksum"), std::string::npos) << entry->why;

  // What the consumer sends about it: an individual ACK of the entry with the reason.
  auto ack = detail::protocol::discardCorrupt(7, entry->id, entry->reason).ack();
  EXPECT_EQ(ack.consumer_id(), 7u);
  EXPECT_EQ(ack.ack_type(), proto::CommandAck::Individual);
  ASSERT_EQ(ack.message_id_size(), 1);
  EXPECT_EQ(ack.message_id(0).ledgerid(), 9u);
  EXPECT_EQ(ack.message_id(0).entryid(), 3u);
  EXPECT_EQ(ack.validation_error(), proto::CommandAck::ChecksumMismatch);
}

TEST(CorruptEntry, ABrokenStreamOrAnotherCommandIsNoEntryOfAnyone) {
  // Cut short: the stream itself is broken (the connection must go).
  FrameDecoder decoder;
  auto frame = messageFrame(7, 3, "payload");
  decoder.feed(std::string_view(frame).substr(0, 6));
  decoder.feed(std::string(40, '\xff'));
  for (int i = 0; i < 3; ++i) {
    auto result = decoder.next();
    if (result.hasError()) {
      EXPECT_FALSE(corruptEntryOf(result.error())) << result.error().message;
      break;
    }
  }
  // A SEND (a payload command that is no consumer's message) with a bad checksum.
  proto::BaseCommand send;
  send.set_type(proto::BaseCommand::SEND);
  send.mutable_send()->set_producer_id(1);
  send.mutable_send()->set_sequence_id(1);
  proto::MessageMetadata metadata;
  metadata.set_producer_name("p");
  metadata.set_sequence_id(1);
  metadata.set_publish_time(1);
  std::string bytes;
  detail::protocol::appendPayloadFrame(bytes, send, metadata, "x");
  auto result = decodeOne(withFlippedLastByte(bytes));
  ASSERT_TRUE(result.hasError());
  EXPECT_FALSE(corruptEntryOf(result.error()));
}

TEST(CorruptEntry, AnEntryThatDoesNotUnpackSaysWhichValidationErrorItIs) {
  detail::protocol::EntryContext context{"persistent://public/default/t", -1};
  detail::protocol::UnpackedEntry entry;
  auto command = messageCommand(1, 1).message();

  proto::MessageMetadata lz4;
  lz4.set_compression(proto::LZ4);
  lz4.set_uncompressed_size(100);
  auto status = detail::protocol::unpackEntry(command, lz4, "not lz4 at all", context, entry);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_EQ(entry.corruption, proto::CommandAck::DecompressionError) << status.message;

  proto::MessageMetadata huge = lz4;
  huge.set_uncompressed_size(context.maxUncompressedSize + 1);
  status = detail::protocol::unpackEntry(command, huge, "x", context, entry);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_EQ(entry.corruption, proto::CommandAck::UncompressedSizeCorruption) << status.message;

  proto::MessageMetadata batch;
  batch.set_num_messages_in_batch(2);
  status = detail::protocol::unpackEntry(command, batch, std::string(20, '\x7f'), context, entry);
  EXPECT_EQ(status.code, errc::protocol_error);
  EXPECT_EQ(entry.corruption, proto::CommandAck::BatchDeSerializeError) << status.message;

  proto::MessageMetadata encrypted;
  encrypted.add_encryption_keys()->set_key("k");
  encrypted.mutable_encryption_keys(0)->set_value("v");
  status = detail::protocol::unpackEntry(command, encrypted, "secret", context, entry);
  EXPECT_EQ(status.code, errc::unsupported);
  EXPECT_FALSE(entry.corruption) << "not damaged: left for a client that can read it";
}

// The consumer against a scripted broker: a damaged entry between two good ones is acknowledged
// with its validation error, its permit comes back, the good ones reach the application, and all
// of it on the one connection.
TEST(CorruptEntry, TheConsumerDiscardsADamagedEntryAndKeepsItsConnection) {
  using pulsar_test::FakeBroker;
  using pulsar_test::FakePeer;
  using namespace pulsar_test::answers;
  std::string url;
  std::promise<proto::CommandAck> discardedAck;
  FakeBroker broker({[&](FakePeer& peer) {
    auto subscribe = acceptUntilFlow(peer, url);
    peer.write(messageFrame(subscribe.consumer_id(), 1, "first"));
    peer.write(withFlippedLastByte(messageFrame(subscribe.consumer_id(), 2, "damaged")));
    peer.write(messageFrame(subscribe.consumer_id(), 3, "third"));
    // The ACK with the validation error and the permit, in either order.
    std::optional<proto::CommandAck> ack;
    bool flowed = false;
    while (!ack || !flowed) {
      auto frame = peer.read();
      if (frame.command.type() == proto::BaseCommand::ACK &&
          frame.command.ack().has_validation_error()) {
        ack = frame.command.ack();
      } else if (frame.command.type() == proto::BaseCommand::FLOW) {
        flowed = true;
      }
    }
    discardedAck.set_value(*ack);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  LoggedErrors errors;
  auto client = scriptedClient(url, errors);
  auto consumer = subscribeScripted(client, "damaged");
  auto received = receiveUpTo(consumer, 2);
  ASSERT_EQ(payloadsOf(received), (std::vector<std::string>{"first", "third"}));
  auto acked = discardedAck.get_future();
  ASSERT_EQ(acked.wait_for(10s), std::future_status::ready) << "no ACK with a validation error";
  auto discarded = acked.get();
  client.close();
  EXPECT_EQ(broker.accepted(), 1) << "the connection was dropped";
  ASSERT_EQ(discarded.message_id_size(), 1);
  EXPECT_EQ(discarded.message_id(0).entryid(), 2u);
  EXPECT_EQ(discarded.validation_error(), proto::CommandAck::ChecksumMismatch);
  auto logged = errors.taken();
  ASSERT_FALSE(logged.empty()) << "the discard was not reported";
  EXPECT_NE(logged[0].find("9:2"), std::string::npos) << logged[0];
  EXPECT_NE(logged[0].find("ChecksumMismatch"), std::string::npos) << logged[0];
}

// An entry this client cannot read (SPEC.md section 5: one chunk of a chunked message, here) is
// not damaged: it is neither discarded nor handed out but left unacknowledged for a client that
// can read it, with an error logged; the messages around it reach the application, and their
// acknowledgements never name it.
TEST(CorruptEntry, TheConsumerLeavesAChunkUnacknowledgedAndGoesOn) {
  using pulsar_test::FakeBroker;
  using pulsar_test::FakePeer;
  using namespace pulsar_test::answers;
  std::string url;
  std::promise<std::vector<std::uint64_t>> ackedEntries;
  FakeBroker broker({[&](FakePeer& peer) {
    auto subscribe = acceptUntilFlow(peer, url);
    proto::MessageMetadata chunk;
    chunk.set_uuid("p-2");
    chunk.set_num_chunks_from_msg(2);
    chunk.set_total_chunk_msg_size(10);
    chunk.set_chunk_id(0);
    peer.write(messageFrame(subscribe.consumer_id(), 1, "first"));
    peer.write(messageFrame(subscribe.consumer_id(), 2, "chunk", chunk));
    peer.write(messageFrame(subscribe.consumer_id(), 3, "third"));
    // Every entry an ACK names, until the consumer closes.
    std::vector<std::uint64_t> acked;
    for (;;) {
      auto frame = peer.read();
      if (frame.command.type() == proto::BaseCommand::ACK) {
        for (const auto& id : frame.command.ack().message_id()) acked.push_back(id.entryid());
        if (frame.command.ack().has_request_id()) confirmAck(peer, frame.command.ack());
      }
      if (peer.answerIfClose(frame)) break;
    }
    ackedEntries.set_value(acked);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  LoggedErrors errors;
  auto client = scriptedClient(url, errors);
  auto consumer = subscribeScripted(client, "chunked");
  auto received = receiveUpTo(consumer, 2);
  ASSERT_EQ(payloadsOf(received), (std::vector<std::string>{"first", "third"}));
  for (const auto& message : received) consumer.acknowledge(message);
  consumer.close();  // hands the grouped acknowledgements on first
  auto acked = ackedEntries.get_future();
  ASSERT_EQ(acked.wait_for(10s), std::future_status::ready) << "the consumer did not close";
  EXPECT_EQ(acked.get(), (std::vector<std::uint64_t>{1, 3}));
  client.close();
  EXPECT_EQ(broker.accepted(), 1) << "the connection was dropped";
  auto logged = errors.taken();
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("9:2 is chunk 0 of 2 of message p-2"), std::string::npos) << logged[0];
  EXPECT_NE(logged[0].find("left unacknowledged"), std::string::npos) << logged[0];
}

}  // namespace
}  // namespace reconsume
