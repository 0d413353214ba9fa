// What the official Java client 4.0.8 writes when it retries and dead-letters: the facts our
// wire compatibility rests on (SPEC.md sections 2 and 3), checked against the real client so a
// change of client version that changes them shows here first.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "admin/http_admin.hpp"
#include "common/service_url.hpp"
#include "integration/java_interop.hpp"
#include "integration/pulsar_environment.hpp"

namespace reconsume::integration {
namespace {

using Properties = std::map<std::string, std::string>;

Properties propertiesOf(const boost::json::object& line) {
  Properties properties;
  for (const auto& [key, value] : line.at("properties").as_object()) {
    properties[std::string(key)] = std::string(value.as_string());
  }
  return properties;
}

TEST(JavaRetryFacts, RetriesCarryTheCountAndOriginThenDeadLetterAfterMaxRedeliver) {
  std::string topic = uniqueTopic("java-retry");
  JavaRun sent = java(
      "produce", {"--topic", topic, "--count", "1", "--key", "k1", "--property", "color=blue"});
  ASSERT_EQ(sent.events("sent").size(), 1u);
  std::string originalId = text(sent.events("sent")[0], "messageId");

  JavaRun run =
      java("retry-participant", {"--topic", topic, "--subscription", "facts", "--max-redeliver",
                                 "2", "--receive", "3", "--then", "reconsume:100"});
  auto subscribed = run.events("subscribed");
  ASSERT_EQ(subscribed.size(), 1u) << run.output;
  // Full names: <topic>-<subscription>-RETRY / -DLQ.
  std::string retryTopic = topic + "-facts-RETRY";
  std::string deadLetterTopic = topic + "-facts-DLQ";
  EXPECT_EQ(text(subscribed[0], "retryTopic"), retryTopic);
  EXPECT_EQ(text(subscribed[0], "deadLetterTopic"), deadLetterTopic);

  auto messages = run.events("message");
  ASSERT_EQ(messages.size(), 3u) << run.output;
  EXPECT_EQ(text(messages[0], "topic"), topic);
  EXPECT_EQ(propertiesOf(messages[0]), (Properties{{"color", "blue"}}));
  for (int hop = 1; hop <= 2; ++hop) {
    const auto& retried = messages[static_cast<std::size_t>(hop)];
    EXPECT_EQ(text(retried, "topic"), retryTopic);
    EXPECT_EQ(text(retried, "key"), "k1");
    EXPECT_EQ(text(retried, "payload"), "message-0");
    EXPECT_EQ(propertiesOf(retried), (Properties{{"color", "blue"},
                                                 {"RECONSUMETIMES", std::to_string(hop)},
                                                 {"DELAY_TIME", "100"},
                                                 {"REAL_TOPIC", topic},
                                                 {"REAL_SUBSCRIPTION", "facts"},
                                                 {"ORIGIN_MESSAGE_ID", originalId},
                                                 {"ORIGIN_MESSAGE_IDY_TIME", originalId}}))
        << "hop " << hop;
  }

  // The third reconsume made RECONSUMETIMES 3 > maxRedeliverCount 2: the dead-letter topic,
  // created without any subscription.
  auto admin = detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(pulsar().adminUrl),
                                               pulsar().adminOptions());
  EXPECT_TRUE(admin->topicExists(deadLetterTopic));
  EXPECT_TRUE(admin->subscriptions(deadLetterTopic).empty());
  JavaRun dead =
      java("consume", {"--topic", deadLetterTopic, "--subscription", "inspect", "--count", "1"});
  auto deadLetters = dead.events("message");
  ASSERT_EQ(deadLetters.size(), 1u) << dead.output;
  EXPECT_EQ(text(deadLetters[0], "key"), "k1");
  EXPECT_EQ(propertiesOf(deadLetters[0]), (Properties{{"color", "blue"},
                                                      {"RECONSUMETIMES", "3"},
                                                      {"DELAY_TIME", "100"},
                                                      {"REAL_TOPIC", topic},
                                                      {"REAL_SUBSCRIPTION", "facts"},
                                                      {"ORIGIN_MESSAGE_ID", originalId},
                                                      {"ORIGIN_MESSAGE_IDY_TIME", originalId}}));
  // Nothing is left behind on the retry topic.
  EXPECT_EQ(admin->subscriptions(retryTopic).at(0).backlog, 0);
}

TEST(JavaRetryFacts, FromAPartitionTheOriginIsTheBaseTopicAndThePartitionedId) {
  std::string topic = uniqueTopic("java-retry-partitioned");
  auto admin = detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(pulsar().adminUrl),
                                               pulsar().adminOptions());
  admin->createPartitionedTopic(topic, 2);
  auto sent = java("produce", {"--topic", topic, "--count", "1", "--key", "k"}).events("sent");
  ASSERT_EQ(sent.size(), 1u);
  const auto& original = sent[0];
  std::int64_t partition = original.at("partition").as_int64();
  std::string originalId = text(original, "messageId");
  ASSERT_EQ(originalId, std::to_string(original.at("ledgerId").as_int64()) + ':' +
                            std::to_string(original.at("entryId").as_int64()) + ':' +
                            std::to_string(partition));

  JavaRun run =
      java("retry-participant", {"--topic", topic, "--subscription", "facts", "--max-redeliver",
                                 "5", "--receive", "2", "--then", "reconsume:0"});
  auto messages = run.events("message");
  ASSERT_EQ(messages.size(), 2u) << run.output;
  EXPECT_EQ(text(messages[0], "topic"), topic + "-partition-" + std::to_string(partition));
  EXPECT_EQ(text(messages[1], "topic"), topic + "-facts-RETRY");
  Properties properties = propertiesOf(messages[1]);
  EXPECT_EQ(properties["REAL_TOPIC"], topic);
  EXPECT_EQ(properties["ORIGIN_MESSAGE_ID"], originalId);
  EXPECT_EQ(properties["DELAY_TIME"], "0");
  EXPECT_EQ(properties["RECONSUMETIMES"], "1");
}

}  // namespace
}  // namespace reconsume::integration
