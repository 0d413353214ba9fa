// The broker's maximum message size (SPEC.md section 5) counts what a message is on the wire, on
// every backend: its payload after the producer's compression, plus its metadata (properties,
// keys, producer name, sequence id, publish time). So a compressible payload larger than the
// limit is sent, compressed, and a payload of exactly the limit is not: its metadata pushes it
// over. (The embedded brokers of these tests run with a 64 KiB limit; Pulsar's default is 5 MiB.)
#include <boost/asio/use_future.hpp>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class MessageSize : public BehaviourTest {
 protected:
  std::size_t limit() const { return embedded() ? 64 * 1024 : 5 * 1024 * 1024; }
};

TEST_P(MessageSize, ACompressedPayloadCountsAtItsCompressedSize) {
  for (auto batching : {true, false}) {
    SCOPED_TRACE(batching ? "batching on" : "batching off");
    auto topic = uniqueTopic("compressed-size");
    auto consumer = client().subscribe(plainOptions(topic));
    ProducerOptions options;
    options.topic = topic;
    options.compression = Compression::lz4;
    options.batching.enabled = batching;
    auto producer = client().createProducer(options);
    const std::string payload(limit() + 4096, 'z');
    ASSERT_NO_THROW(producer.send(payload));
    auto message = receiveNow(consumer);
    EXPECT_EQ(message.data().size(), payload.size());
    EXPECT_TRUE(message.data() == payload);
  }
}

TEST_P(MessageSize, APayloadOfExactlyTheLimitIsTooLargeWithItsMetadata) {
  auto producer = client().createProducer(uniqueTopic("exact-size"));
  try {
    producer.send(std::string(limit(), 'x'));
    FAIL() << "a payload of the whole limit was sent with its metadata";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(limit())), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(producer.send(std::string(limit() - 1024, 'x')));
}

// Incompressible bytes just under the limit grow when compressed, past it: too_large, at once, as
// for any message over the limit — a batch of one used to go out whole, be refused by the broker
// with a reset of the connection, and be written again until the send timeout.
TEST_P(MessageSize, IncompressibleBytesThatCompressionTakesOverTheLimitAreTooLarge) {
  ProducerOptions options;
  options.topic = uniqueTopic("incompressible");
  options.compression = Compression::lz4;
  options.sendTimeout = 20s;
  auto producer = client().createProducer(options);
  std::mt19937 random(11);
  std::string noise(limit() - limit() / 256, '\0');
  for (auto& byte : noise) byte = static_cast<char>(random());
  try {
    producer.send(noise);
    FAIL() << "sent, compressed past the broker's limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
  }
  EXPECT_NO_THROW(producer.send(std::string("after")));
}

// batching.maxBytes above the broker's limit: entries are cut at the limit, and every message,
// each well under it, is sent.
TEST_P(MessageSize, BatchesStopAtTheBrokersLimitWhateverMaxBytesSays) {
  ProducerOptions options;
  options.topic = uniqueTopic("batch-limit");
  options.batching.maxBytes = 4 * limit();
  options.batching.maxPublishDelay = std::chrono::seconds(1);
  options.sendTimeout = 20s;
  auto producer = client().createProducer(options);
  constexpr int kCount = 40;
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < kCount; ++i) {
    OutgoingMessage message;
    message.payload = std::string(limit() / 25, static_cast<char>('a' + i % 26));
    sent.push_back(producer.asyncSend(message, boost::asio::use_future));
  }
  for (auto& done : sent) EXPECT_NO_THROW(done.get());
}

INSTANTIATE_TEST_SUITE_P(Backends, MessageSize, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
