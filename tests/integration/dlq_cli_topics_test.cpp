// `reconsume dlq` as a process on unusual input: dead letters written by the Java client, dead
// letters whose origin is a partition (as the Go client writes them), bad input (exit code 2, the
// value named, nothing changed), a topic that is no dead-letter topic.
#include <boost/json/parse.hpp>
#include <map>

#include "client/key_hash.hpp"
#include "common/topic_name.hpp"
#include "integration/dlq_cli_support.hpp"
#include "integration/java_interop.hpp"

namespace reconsume::integration {
namespace {

TEST_F(DlqCli, JavaWrittenDeadLettersListAsCauseUnknown) {
  std::string topic = uniqueTopic("dlq-cli-java");
  ASSERT_EQ(runJava("produce", {"--topic", topic, "--count", "2"}).exitCode, 0);
  // maxRedeliverCount 1: the second reconsume of each message dead-letters it; the dead-letter
  // producer creates reconsume-dlq so that they are kept.
  auto java =
      runJava("retry-participant",
              {"--topic", topic, "--subscription", "billing", "--max-redeliver", "1", "--receive",
               "4", "--then", "reconsume:0", "--initial-subscription", "reconsume-dlq"});
  ASSERT_EQ(java.exitCode, 0) << java.output;
  std::string dlq = topic + "-billing-DLQ";
  auto run = cli({"dlq", "list", "--jsonl", dlq});
  ASSERT_EQ(run.code, 0) << run.err;
  auto items = jsonLines(run.out);
  ASSERT_EQ(items.size(), 2u) << run.out;
  for (const auto& item : items) {
    EXPECT_EQ(item.at("cause").as_string(), "unknown");
    EXPECT_EQ(item.at("originTopic").as_string(), topic);
    EXPECT_EQ(item.at("reconsumeTimes").as_int64(), 2);
  }
  auto unknown = cli({"dlq", "list", "--jsonl", "--cause", "unknown", dlq});
  EXPECT_EQ(jsonLines(unknown.out).size(), 2u);
}

// The Go client writes REAL_TOPIC with the partition a message was received on.
TEST_F(DlqCli, APartitionedOriginIsOneTopicForOriginStatsAndReplay) {
  constexpr int kPartitions = 3;
  std::string origin = uniqueTopic("dlq-cli-part");
  admin_.createPartitionedTopic(origin, kPartitions);
  ConsumerOptions service;
  service.topics = {origin};
  service.subscription = "billing";
  service.initialPosition = InitialPosition::earliest;
  auto consumer = client_.subscribe(service);
  std::string dlq = origin + "-billing-DLQ";
  ConsumerOptions keep;
  keep.topics = {dlq};
  keep.subscription = "reconsume-dlq";
  keep.initialPosition = InitialPosition::earliest;
  client_.subscribe(keep).close();
  auto writer = client_.createProducer(dlq);
  std::map<std::string, int> routedTo;
  for (int i = 0; i < 4; ++i) {
    std::string key = "customer-" + std::to_string(i);
    routedTo[key] = detail::client::partitionForKey(key, kPartitions);
    auto stored = (routedTo[key] + 1) % kPartitions;  // not where the key routes now
    OutgoingMessage message;
    message.payload = "order-" + std::to_string(i);
    message.key = key;
    message.properties = {
        {"RECONSUMETIMES", "4"},
        {"REAL_TOPIC", origin + "-partition-" + std::to_string(stored)},
        {"ORIGIN_MESSAGE_ID", "9:" + std::to_string(i) + ":" + std::to_string(stored)}};
    writer.send(message);
  }
  auto count = [&](const std::string& filter) {
    auto run = cli({"dlq", "list", "--jsonl", "--origin", filter, dlq});
    EXPECT_EQ(run.code, 0) << run.err;
    return jsonLines(run.out).size();
  };
  EXPECT_EQ(count(detail::TopicName::parse(origin).localName()), 4u);
  std::size_t onPartition0 = 0;
  for (const auto& [key, partition] : routedTo) onPartition0 += (partition + 1) % kPartitions == 0;
  EXPECT_EQ(count(origin + "-partition-0"), onPartition0);

  auto stats = cli({"dlq", "stats", "--json", dlq});
  ASSERT_EQ(stats.code, 0) << stats.err;
  auto byOrigin = boost::json::parse(stats.out).at("byOrigin").as_object();
  ASSERT_EQ(byOrigin.size(), 1u) << stats.out;
  EXPECT_EQ(byOrigin.at(origin).as_int64(), 4);

  auto replay = cli({"dlq", "replay", "--json", "--origin", origin, dlq});
  ASSERT_EQ(replay.code, 0) << replay.err;
  EXPECT_EQ(boost::json::parse(replay.out).at("replayed").as_int64(), 4) << replay.out;
  for (int i = 0; i < 4; ++i) {
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message) << "replayed message " << i << " did not arrive on " << origin;
    EXPECT_EQ(message->topic(),
              origin + "-partition-" + std::to_string(routedTo.at(*message->key())))
        << *message->key();
    consumer.acknowledge(*message);
  }
  EXPECT_EQ(admin_.backlog(dlq, "reconsume-dlq"), 0);
}

TEST_F(DlqCli, BadInputIsNamedExitsTwoAndChangesNothing) {
  deadLetter("order", 2, "timeout");
  struct Case {
    Strings args;
    std::string named;
  };
  std::string missing = uniqueTopic("dlq-cli-missing") + "-DLQ";
  std::vector<Case> cases = {
      {{"dlq", "list", missing}, missing},
      {{"dlq", "list", "--reason", "time(out", dlq_}, "'time(out'"},
      {{"dlq", "purge", "--reason", "[", dlq_}, "'['"},
      {{"dlq", "list", "--older-than", "5 minutes", dlq_}, "'5 minutes'"},
      {{"dlq", "replay", "--newer-than", "1y", dlq_}, "'1y'"},
      {{"dlq", "replay", "--rate", "0", dlq_}, "--rate '0'"},
      {{"dlq", "replay", "--rate", "-5/s", dlq_}, "--rate '-5/s'"},
      {{"dlq", "show", dlq_, "12-7"}, "'12-7'"},
  };
  for (const auto& c : cases) {
    auto run = cli(c.args);
    EXPECT_EQ(run.code, 2) << c.named << "\n" << run.err;
    EXPECT_NE(run.err.find(c.named), std::string::npos) << run.err;
  }
  EXPECT_EQ(backlog(), 2);
  EXPECT_FALSE(admin_.topicExists(missing)) << "asking must not create it";
  EXPECT_FALSE(consumer_.receive(500ms)) << "nothing was replayed";
}

TEST_F(DlqCli, ATopicThatIsNoDeadLetterTopicWarnsAndStillWorks) {
  ConsumerOptions options;
  options.topics = {topic_};
  options.subscription = "reconsume-dlq";
  options.initialPosition = InitialPosition::earliest;
  client_.subscribe(options).close();
  producer_.send("just an order");
  auto run = cli({"dlq", "list", "--jsonl", topic_});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(jsonLines(run.out).size(), 1u);
  EXPECT_NE(run.err.find("does not end in -DLQ"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("carries a retry property"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace reconsume::integration
