// The pulsar:// backend's producer options against the standalone: every compression type round
// trips (Pulsar decompresses nothing; the consumer does), a message over the broker's maximum
// size is refused before anything is sent, and a full queue fails fast when not blocking.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>

#include "admin/admin_paths.hpp"
#include "admin/http_transport.hpp"
#include "common/service_url.hpp"
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

// Unloading a topic makes the broker close its producers and consumers (CLOSE_PRODUCER,
// CLOSE_CONSUMER); they look the topic up again and come back by themselves.
TEST_F(PulsarBackend, ProducersAndConsumersComeBackAfterTheBrokerClosedThem) {
  std::mutex mutex;
  std::vector<std::string> logged;
  ClientOptions options;
  options.logLevel = LogLevel::info;
  options.logger = [&](LogLevel, std::string_view text) {
    std::lock_guard lock(mutex);
    logged.emplace_back(text);
  };
  client_.close();
  client_ = Client::connect(pulsar().serviceUrl, options);
  auto topic = uniqueTopic("unload");
  auto consumer = subscribe(topic);
  auto producer = client_.createProducer(topic);
  producer.send("before");
  auto before = consumer.receive(10s);
  ASSERT_TRUE(before);
  consumer.acknowledge(*before);

  auto admin = detail::ServiceUrl::parse(pulsar().adminUrl);
  detail::admin::Transport transport(pulsar().adminOptions().tls, pulsar().adminOptions().token);
  detail::admin::Request unload;
  unload.method = boost::beast::http::verb::put;
  unload.target = detail::admin::topicPath(detail::TopicName::parse(topic), "/unload");
  detail::admin::Response response;
  auto status =
      transport.request({admin.kind == detail::ServiceUrl::Kind::https, admin.host, admin.port},
                        unload, std::chrono::steady_clock::now() + 30s, response);
  ASSERT_TRUE(status.ok()) << status.message;
  ASSERT_EQ(response.status, 204u) << response.body;

  // The first send after the unload waits for the producer to be back.
  auto id = producer.send("after");
  auto after = consumer.receive(20s);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->data(), "after");
  EXPECT_EQ(after->id(), id);
  consumer.acknowledge(*after);
  std::lock_guard lock(mutex);
  auto closedByBroker = [&](const std::string& what) {
    return std::any_of(logged.begin(), logged.end(), [&](const std::string& line) {
      return line.find("the broker closed " + what) != std::string::npos;
    });
  };
  EXPECT_TRUE(closedByBroker("producer")) << "the unload did not close the producer";
  EXPECT_TRUE(closedByBroker("consumer")) << "the unload did not close the consumer";
}

}  // namespace
}  // namespace reconsume::integration
