// The pulsar:// backend's producer options against the standalone: every compression type round
// trips (Pulsar decompresses nothing; the consumer does), a message over the broker's maximum
// size is refused before anything is sent, and a full queue fails fast when not blocking.
#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>

#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

class PulsarBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    ClientOptions options;
    options.logLevel = LogLevel::error;  // the refused sends would each log a warning
    client_ = Client::connect(pulsar().serviceUrl, options);
  }
  void TearDown() override { client_.close(); }

  Consumer subscribe(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "backend";
    options.initialPosition = InitialPosition::earliest;
    return client_.subscribe(options);
  }

  Client client_;
};

TEST_F(PulsarBackend, EveryCompressionRoundTrips) {
  std::string large;
  for (int i = 0; i < 20'000; ++i) large += "line " + std::to_string(i % 97) + "\n";
  for (auto compression : {Compression::none, Compression::lz4, Compression::zlib,
                           Compression::zstd, Compression::snappy}) {
    SCOPED_TRACE(static_cast<int>(compression));
    auto topic = uniqueTopic("compression");
    auto consumer = subscribe(topic);
    ProducerOptions options;
    options.topic = topic;
    options.compression = compression;
    auto producer = client_.createProducer(options);
    OutgoingMessage message;
    message.payload = large;
    message.key = "k";
    message.properties = {{"p", "v"}};
    producer.send(message);
    producer.send("small");
    auto first = consumer.receive(10s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->data(), large);
    EXPECT_EQ(first->property("p"), "v");
    EXPECT_EQ(first->key(), "k");
    auto second = consumer.receive(10s);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->data(), "small");
    consumer.acknowledge(*first);
    consumer.acknowledge(*second);
  }
}

TEST_F(PulsarBackend, AMessageOverTheBrokersLimitIsRefusedBeforeSending) {
  auto topic = uniqueTopic("too-large");
  auto consumer = subscribe(topic);
  auto producer = client_.createProducer(topic);
  try {
    producer.send(std::string(6 * 1024 * 1024, 'x'));  // the standalone allows 5 MiB
    FAIL() << "a 6 MiB message was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
    EXPECT_NE(std::string(e.what()).find("5242880"), std::string::npos) << e.what();
  }
  // Nothing went out, and the producer still works.
  auto id = producer.send("fits");
  auto received = consumer.receive(10s);
  ASSERT_TRUE(received);
  EXPECT_EQ(received->id(), id);
  EXPECT_EQ(received->data(), "fits");
}

TEST_F(PulsarBackend, AFullQueueFailsFastWhenNotBlocking) {
  ProducerOptions options;
  options.topic = uniqueTopic("busy");
  options.maxPendingMessages = 1;
  options.blockIfQueueFull = false;
  auto producer = client_.createProducer(options);
  std::vector<std::future<MessageId>> sends;
  for (int i = 0; i < 50; ++i) {
    OutgoingMessage message;
    message.payload = std::to_string(i);
    sends.push_back(producer.asyncSend(message, boost::asio::use_future));
  }
  int sent = 0, busy = 0;
  for (auto& send : sends) {
    try {
      send.get();
      ++sent;
    } catch (const boost::system::system_error& e) {
      EXPECT_EQ(e.code(), errc::producer_busy) << e.what();
      ++busy;
    }
  }
  EXPECT_GE(sent, 1);
  EXPECT_GE(busy, 1);
  EXPECT_EQ(sent + busy, 50);
}

}  // namespace
}  // namespace reconsume::integration
