// A batching producer on pulsar:// against a scripted broker that checks the exact SEND frames:
// messages sent together go out as one batch entry (sequence ids, num_messages, the payloads
// inside), the entry is written again byte for byte after a reconnection, each message gets the
// entry's id with its batch index, and a message alone in its window goes out as a plain entry.
#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>

#include "protocol/entry_unpacker.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using namespace pulsar_test::answers;

const std::string kTopic = pulsar_test::answers::kScriptedTopic;

ClientOptions quietOptions() {
  ClientOptions options;
  options.logger = [](LogLevel, std::string_view) {};
  options.operationTimeout = 10s;
  return options;
}

// The payloads of a SEND frame's batch entry.
std::vector<std::string> batchPayloads(const detail::protocol::Frame& send) {
  proto::CommandMessage command;
  detail::protocol::UnpackedEntry entry;
  auto status = detail::protocol::unpackEntry(command, *send.metadata, send.payload,
                                              {.topic = kTopic}, entry);
  EXPECT_TRUE(status.ok()) << status.message;
  std::vector<std::string> payloads;
  for (auto& message : entry.messages) payloads.push_back(message.data.payload.toString());
  return payloads;
}

TEST(PulsarProducerBatching, MessagesSentTogetherShareOneEntryWrittenAgainWholeAfterAReconnection) {
  std::string url;
  std::vector<FakeBroker::Script> scripts;
  std::uint64_t producerId = 0;
  std::string firstBatch;
  scripts.push_back([&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    producerId = answerProducer(peer).producer_id();
    auto send = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(send.command.send().sequence_id(), 0u);
    EXPECT_EQ(send.command.send().highest_sequence_id(), 2u);
    EXPECT_EQ(send.command.send().num_messages(), 3);
    EXPECT_EQ(send.metadata->num_messages_in_batch(), 3);
    EXPECT_EQ(send.metadata->producer_name(), "standalone-0-7");
    EXPECT_EQ(batchPayloads(send), (std::vector<std::string>{"m0", "m1", "m2"}));
    firstBatch = send.payload.toString();
    // The connection breaks before the receipt.
  });
  scripts.push_back([&](FakePeer& peer) {
    peer.acceptConnect();
    answerLookup(peer, url);
    answerProducer(peer);
    auto send = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(send.command.send().sequence_id(), 0u) << "the same entry again";
    EXPECT_EQ(send.payload, firstBatch);
    receipt(peer, producerId, 0, 5);
    // A message alone in its batch window goes out as a plain message.
    auto alone = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(alone.command.send().sequence_id(), 3u);
    EXPECT_FALSE(alone.metadata->has_num_messages_in_batch());
    EXPECT_EQ(alone.payload, "m3");
    receipt(peer, producerId, 3, 6);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  });
  FakeBroker broker(std::move(scripts));
  url = broker.url();
  auto client = Client::connect(url, quietOptions());
  ProducerOptions options;
  options.topic = kTopic;
  options.batching.maxMessages = 3;         // the third message completes the batch...
  options.batching.maxPublishDelay = 50ms;  // ...long before this would
  auto producer = client.createProducer(options);
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < 3; ++i) {
    sent.push_back(producer.asyncSend(OutgoingMessage{.payload = "m" + std::to_string(i)},
                                      boost::asio::use_future));
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(sent[static_cast<std::size_t>(i)].wait_for(20s), std::future_status::ready) << i;
    EXPECT_EQ(sent[static_cast<std::size_t>(i)].get(), MessageId(40, 5, -1, i, 3));
  }
  EXPECT_EQ(producer.send(OutgoingMessage{.payload = "m3"}), MessageId(40, 6));
  client.close();
}

}  // namespace
}  // namespace reconsume
