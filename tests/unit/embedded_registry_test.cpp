// The registry of embedded brokers: shared by name, held weakly, one clock per broker, options.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

ServiceUrl urlOf(const std::string& name, const std::string& query = "") {
  return ServiceUrl::parse("embedded://" + name + query);
}

TEST(EmbeddedRegistry, ClientsOfOneNameShareOneBroker) {
  auto url = urlOf(uniqueBrokerName());
  auto clock = std::make_shared<ManualClock>();
  auto first = connectEmbedded(url, clock);
  auto second = connectEmbedded(url, clock);

  ProducerOptions options;
  options.topic = topicName("shared");
  std::shared_ptr<client::BackendProducer> producer;
  callStatus([&](auto done) { first.backend->createProducer(options, done); }, producer)
      .raiseIfFailed();
  auto sink = std::make_shared<RecordingSink>();
  client::SubscribeSpec spec;
  spec.topic = options.topic;
  spec.subscription = "s";
  spec.initialPosition = InitialPosition::earliest;
  std::shared_ptr<client::BackendConsumer> consumer;
  callStatus([&](auto done) { second.backend->subscribe(spec, sink, done); }, consumer)
      .raiseIfFailed();

  send(*producer, "through the first client");
  EXPECT_EQ(sink->payloads(), std::vector<std::string>{"through the first client"});
}

TEST(EmbeddedRegistry, DifferentNamesAreDifferentBrokers) {
  Harness one(uniqueBrokerName() + "-one");
  Harness two(uniqueBrokerName() + "-two");
  one.producer(topicName("only-on-one"));
  EXPECT_TRUE(one.admin->topicExists(topicName("only-on-one")));
  EXPECT_FALSE(two.admin->topicExists(topicName("only-on-one")));
}

TEST(EmbeddedRegistry, AdminSharesTheClientsBroker) {
  Harness client;
  client.producer(topicName("t"));
  auto admin = connectEmbeddedAdmin(urlOf(uniqueBrokerName()));
  EXPECT_TRUE(admin->topicExists(topicName("t")));
}

TEST(EmbeddedRegistry, LaterConnectWithoutClockAdoptsTheBrokersClock) {
  auto url = urlOf(uniqueBrokerName());
  auto clock = std::make_shared<ManualClock>();
  auto first = connectEmbedded(url, clock);
  auto second = connectEmbedded(url, nullptr);
  EXPECT_EQ(first.clock, clock);
  EXPECT_EQ(second.clock, clock);
}

TEST(EmbeddedRegistry, SameClockAgainIsAccepted) {
  auto url = urlOf(uniqueBrokerName());
  auto clock = std::make_shared<ManualClock>();
  auto first = connectEmbedded(url, clock);
  EXPECT_EQ(connectEmbedded(url, clock).clock, clock);
}

TEST(EmbeddedRegistry, ADifferentClockIsRefusedNamingTheBroker) {
  auto name = uniqueBrokerName();
  auto first = connectEmbedded(urlOf(name), std::make_shared<ManualClock>());
  auto error = thrownBy([&] { connectEmbedded(urlOf(name), std::make_shared<ManualClock>()); });
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(std::string(error.what()).find("'" + name + "'"), std::string::npos) << error.what();
}

TEST(EmbeddedRegistry, FirstConnectWithoutClockRunsOnTheSharedSystemClock) {
  auto connection = connectEmbedded(urlOf(uniqueBrokerName()), nullptr);
  EXPECT_EQ(connection.clock, SystemClock::shared());
}

TEST(EmbeddedRegistry, DefaultBrokerIsSharedByEveryEmptyName) {
  auto first = connectEmbedded(ServiceUrl::parse("embedded://"), nullptr);
  auto admin = connectEmbeddedAdmin(ServiceUrl::parse("embedded://"));
  auto topic = topicName(uniqueBrokerName());
  ProducerOptions options;
  options.topic = topic;
  std::shared_ptr<client::BackendProducer> producer;
  callStatus([&](auto done) { first.backend->createProducer(options, done); }, producer)
      .raiseIfFailed();
  EXPECT_TRUE(admin->topicExists(topic));
}

TEST(EmbeddedRegistry, BrokerLivesWhileHeldThenStartsAfresh) {
  auto url = urlOf(uniqueBrokerName());
  {
    Harness client(url.host);
    client.producer(topicName("t"));
    auto admin = connectEmbeddedAdmin(url);
    client = Harness(url.host + "-other");  // the client lets go; the admin still holds it
    EXPECT_TRUE(admin->topicExists(topicName("t")));
  }
  auto admin = connectEmbeddedAdmin(url);
  EXPECT_FALSE(admin->topicExists(topicName("t")));
}

TEST(EmbeddedRegistry, UnknownOptionIsRefusedNamingIt) {
  auto error =
      thrownBy([&] { connectEmbedded(urlOf(uniqueBrokerName(), "?maxMesageSize=10"), nullptr); });
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(std::string(error.what()).find("maxMesageSize"), std::string::npos) << error.what();
}

TEST(EmbeddedRegistry, BadMaxMessageSizeIsRefusedNamingTheValue) {
  for (std::string value : {"abc", "0", "-5", "12x", ""}) {
    auto error = thrownBy(
        [&] { connectEmbedded(urlOf(uniqueBrokerName(), "?maxMessageSize=" + value), nullptr); });
    EXPECT_EQ(error.code(), errc::invalid_argument) << value;
    EXPECT_NE(std::string(error.what()).find("maxMessageSize '" + value + "'"), std::string::npos)
        << error.what();
  }
}

TEST(EmbeddedRegistry, AnotherMaxMessageSizeForARunningBrokerIsRefused) {
  auto name = uniqueBrokerName();
  auto first = connectEmbedded(urlOf(name, "?maxMessageSize=100"), nullptr);
  auto error = thrownBy([&] { connectEmbedded(urlOf(name, "?maxMessageSize=200"), nullptr); });
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(std::string(error.what()).find("maxMessageSize=100"), std::string::npos);
  // Without the option, or with the same value, the running broker is shared.
  EXPECT_NO_THROW(connectEmbedded(urlOf(name), nullptr));
  EXPECT_NO_THROW(connectEmbedded(urlOf(name, "?maxMessageSize=100"), nullptr));
}

TEST(EmbeddedRegistry, MaxMessageSizeOptionSetsTheLimit) {
  auto url = urlOf(uniqueBrokerName(), "?maxMessageSize=100");
  auto connection = connectEmbedded(url, std::make_shared<ManualClock>());
  ProducerOptions options;
  options.topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer;
  callStatus([&](auto done) { connection.backend->createProducer(options, done); }, producer)
      .raiseIfFailed();
  OutgoingMessage message;
  message.payload = std::string(50, 'x');
  MessageId id;
  EXPECT_TRUE(trySend(*producer, message, id).ok());
  message.payload = std::string(100, 'x');  // its metadata takes it over 100
  EXPECT_EQ(trySend(*producer, message, id).code, errc::too_large);
}

TEST(EmbeddedRegistry, DefaultMaxMessageSizeIsPulsarsFiveMebibytes) {
  Harness harness;
  auto producer = harness.producer(topicName("t"));
  OutgoingMessage message;
  message.payload = std::string(5 * 1024 * 1024 - 1024, 'x');
  MessageId id;
  EXPECT_TRUE(trySend(*producer, message, id).ok());
  message.payload = std::string(5 * 1024 * 1024, 'x');  // with its metadata, over
  auto status = trySend(*producer, message, id);
  EXPECT_EQ(status.code, errc::too_large);
  EXPECT_NE(status.message.find("maximum message size 5242880"), std::string::npos)
      << status.message;
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
