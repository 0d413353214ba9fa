// The HTTP admin backend against the Pulsar standalone; messages and subscriptions come from the
// official Java client (java_interop.hpp).

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "integration/backlog_wait.hpp"
#include "integration/http_admin_backend.hpp"
#include "integration/java_interop.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/error.hpp"
#include "unit/expect_error.hpp"

namespace reconsume::integration {
namespace {

using reconsume::testing::thrownBy;

using detail::client::AdminBackend;

std::int64_t backlogOf(const std::vector<SubscriptionStats>& stats, const std::string& name) {
  for (const auto& s : stats) {
    if (s.name == name) return s.backlog;
  }
  ADD_FAILURE() << "no subscription '" << name << "'";
  return -1;
}

TEST(HttpAdmin, CreatesAPartitionedTopicAndReportsItsPartitions) {
  auto backend = admin();
  std::string topic = uniqueTopic("partitioned");
  EXPECT_FALSE(backend->topicExists(topic));
  EXPECT_EQ(backend->partitions(topic), 0);

  backend->createPartitionedTopic(topic, 3);
  EXPECT_EQ(backend->partitions(topic), 3);
  EXPECT_TRUE(backend->topicExists(topic));
  // No partition has had a producer or consumer yet: no subscriptions, no error.
  EXPECT_TRUE(backend->subscriptions(topic).empty());

  Error again = thrownBy([&] { backend->createPartitionedTopic(topic, 3); });
  EXPECT_EQ(again.code(), errc::broker_error);
  EXPECT_NE(std::string(again.what()).find("409"), std::string::npos) << again.what();
  EXPECT_NE(std::string(again.what()).find("/partitions"), std::string::npos) << again.what();
}

TEST(HttpAdmin, ANonPartitionedTopicExistsOnceWrittenAndHasNoPartitions) {
  auto backend = admin();
  std::string topic = uniqueTopic("plain");
  EXPECT_FALSE(backend->topicExists(topic));
  java("produce", {"--topic", topic, "--count", "1"});
  EXPECT_TRUE(backend->topicExists(topic));
  EXPECT_EQ(backend->partitions(topic), 0);
  EXPECT_TRUE(backend->topicExists(topic + "-not-this-one") == false);
}

TEST(HttpAdmin, SubscriptionsReportTheirBacklog) {
  auto backend = admin();
  std::string topic = uniqueTopic("backlog");
  java("consume", {"--topic", topic, "--subscription", "first", "--count", "0"});
  java("consume", {"--topic", topic, "--subscription", "second", "--count", "0"});
  java("produce", {"--topic", topic, "--count", "5"});
  java("consume", {"--topic", topic, "--subscription", "first", "--count", "2"});

  EXPECT_EQ(awaitBacklog(*backend, topic, "first", 3), 3);
  auto stats = backend->subscriptions(topic);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "first");  // sorted by name
  EXPECT_EQ(stats[1].name, "second");
  EXPECT_EQ(backlogOf(stats, "first"), 3);
  EXPECT_EQ(backlogOf(stats, "second"), 5);
}

TEST(HttpAdmin, BacklogsOfAPartitionedTopicAreSummedOverItsPartitions) {
  auto backend = admin();
  std::string topic = uniqueTopic("partitioned-backlog");
  backend->createPartitionedTopic(topic, 3);
  java("consume", {"--topic", topic, "--subscription", "sub", "--count", "0"});
  // Unkeyed and unbatched, the Java producer spreads messages over the partitions round-robin.
  JavaRun sent = java("produce", {"--topic", topic, "--count", "7"});
  std::set<std::int64_t> partitionsUsed;
  for (const auto& line : sent.events("sent"))
    partitionsUsed.insert(line.at("partition").as_int64());
  ASSERT_GT(partitionsUsed.size(), 1u) << sent.output;

  auto stats = backend->subscriptions(topic);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(backlogOf(stats, "sub"), 7);

  java("consume", {"--topic", topic, "--subscription", "sub", "--count", "4"});
  // The harness's consumer waits for each acknowledgement's receipt; the statistics may still
  // trail the acknowledgements by a moment.
  EXPECT_EQ(awaitBacklog(*backend, topic, "sub", 3), 3);
}

TEST(HttpAdmin, ATerminatedTopicRefusesNewMessages) {
  auto backend = admin();
  std::string topic = uniqueTopic("terminate");
  java("produce", {"--topic", topic, "--count", "2"});
  backend->terminateTopic(topic);

  JavaRun refused = runJava("produce", {"--topic", topic, "--count", "1", "--timeout-ms", "15000"});
  EXPECT_NE(refused.exitCode, 0) << refused.output;
  auto errors = refused.events("error");
  ASSERT_EQ(errors.size(), 1u) << refused.output;
  EXPECT_NE(errors[0].at("exception").as_string().find("TopicTerminated"), std::string::npos)
      << refused.output;
  // What was written before stays readable.
  java("consume", {"--topic", topic, "--subscription", "after", "--count", "2"});
}

TEST(HttpAdmin, TerminatingAPartitionedTopicTerminatesEveryPartition) {
  auto backend = admin();
  std::string topic = uniqueTopic("terminate-partitioned");
  backend->createPartitionedTopic(topic, 2);
  // No partition exists yet as a topic; terminate must still close all of them.
  backend->terminateTopic(topic);
  for (int i = 0; i < 2; ++i) {
    std::string partition = topic + "-partition-" + std::to_string(i);
    JavaRun refused =
        runJava("produce", {"--topic", partition, "--count", "1", "--timeout-ms", "15000"});
    EXPECT_NE(refused.exitCode, 0) << partition << ":\n" << refused.output;
  }
}

TEST(HttpAdmin, DeletesTopicsPartitionedOrNot) {
  auto backend = admin();
  std::string plain = uniqueTopic("delete");
  java("produce", {"--topic", plain, "--count", "1"});
  ASSERT_TRUE(backend->topicExists(plain));
  backend->deleteTopic(plain);
  EXPECT_FALSE(backend->topicExists(plain));

  std::string partitioned = uniqueTopic("delete-partitioned");
  backend->createPartitionedTopic(partitioned, 2);
  java("produce", {"--topic", partitioned, "--count", "2"});
  backend->deleteTopic(partitioned);
  EXPECT_FALSE(backend->topicExists(partitioned));
  EXPECT_EQ(backend->partitions(partitioned), 0);
  EXPECT_FALSE(backend->topicExists(partitioned + "-partition-0"));

  Error twice = thrownBy([&] { backend->deleteTopic(plain); });
  EXPECT_EQ(twice.code(), errc::not_found);
}

TEST(HttpAdmin, UnknownTopicsAreNotFoundNamingThePath) {
  auto backend = admin();
  std::string topic = uniqueTopic("unknown");
  std::string local = topic.substr(topic.rfind('/') + 1);
  for (auto call :
       {+[](detail::client::AdminBackend&a, const std::string&t) { a.subscriptions(t); },
        +[](detail::client::AdminBackend&a, const std::string&t) { a.terminateTopic(t); },
        +[](detail::client::AdminBackend&a, const std::string&t) { a.deleteTopic(t); }}) {
    Error error = thrownBy([&] { call(*backend, topic); });
    EXPECT_EQ(error.code(), errc::not_found) << error.what();
    EXPECT_NE(std::string(error.what()).find("/admin/v2/persistent/public/default/" + local),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("404"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(backend->topicExists(topic));  // asking created nothing
}

TEST(HttpAdmin, BadArgumentsAreRejectedBeforeAnyRequest) {
  auto backend = admin();
  std::string topic = uniqueTopic("bad-count");
  Error zero = thrownBy([&] { backend->createPartitionedTopic(topic, 0); });
  EXPECT_EQ(zero.code(), errc::invalid_argument);
  EXPECT_NE(std::string(zero.what()).find("0 partitions"), std::string::npos) << zero.what();
  EXPECT_FALSE(backend->topicExists(topic));

  Error name = thrownBy([&] { backend->partitions("a/b"); });
  EXPECT_EQ(name.code(), errc::invalid_argument);
  EXPECT_NE(std::string(name.what()).find("'a/b'"), std::string::npos) << name.what();
}

}  // namespace
}  // namespace reconsume::integration
