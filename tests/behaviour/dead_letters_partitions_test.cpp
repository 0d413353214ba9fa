// Dead letters whose origin is a partition, on every backend: the Java and Go clients write
// REAL_TOPIC with the partition a message was received on (…-partition-N). The origin filter and
// the stats take a topic with its partitions; replay goes to the partitioned topic, routed by key
// (SPEC.md §4 "Partitioned origins").
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "client/key_hash.hpp"
#include "common/topic_name.hpp"
#include "dead_letters_fixture.hpp"

namespace reconsume::behaviour {
namespace {

using detail::client::partitionForKey;

std::string partitionOf(const std::string& topic, int index) {
  return topic + "-partition-" + std::to_string(index);
}

class OtherClientsDeadLetters {
 public:
  // The dead-letter topic of `origin` and subscription "billing", with the dead-letter
  // subscription, and a producer writing to it as the Go client's dead-letter producer does.
  OtherClientsDeadLetters(Client& client, const std::string& origin)
      : topic_(origin + "-billing-DLQ") {
    ConsumerOptions subscription;
    subscription.topics = {topic_};
    subscription.subscription = "reconsume-dlq";
    subscription.initialPosition = InitialPosition::earliest;
    client.subscribe(subscription).close();
    producer_ = client.createProducer(topic_);
  }

  void write(const std::string& payload, const std::string& realTopic,
             std::optional<std::string> key = {}) {
    OutgoingMessage message;
    message.payload = payload;
    message.key = std::move(key);
    auto partition = std::to_string(std::max(detail::partitionIndexOf(realTopic), 0));
    message.properties = {{"RECONSUMETIMES", "4"},
                          {"DELAY_TIME", "1000"},
                          {"REAL_TOPIC", realTopic},
                          {"ORIGIN_MESSAGE_IDY_TIME", "5:0:" + partition},
                          {"ORIGIN_MESSAGE_ID", "5:0:" + partition}};
    producer_.send(message);
  }

  const std::string& topic() const { return topic_; }

 private:
  std::string topic_;
  Producer producer_;
};

TEST_P(DeadLetters, TheOriginFilterAndTheStatsTakeATopicWithItsPartitions) {
  auto origin = uniqueTopic("part-orders");
  admin().createPartitionedTopic(origin, 3);
  auto other = uniqueTopic("part-payments");
  OtherClientsDeadLetters written(client(), origin);
  written.write("p0", partitionOf(origin, 0));
  written.write("p2", partitionOf(origin, 2));
  written.write("whole", origin);  // as this library writes it
  written.write("p2-again", partitionOf(origin, 2));
  written.write("payment", partitionOf(other, 1));
  DeadLetterQueue dlq(client(), admin(), written.topic());

  DeadLetterFilter topic;
  topic.origin = origin;
  EXPECT_EQ(payloads(dlq.list(topic)), (Strings{"p0", "p2", "whole", "p2-again"}));
  DeadLetterFilter shortName;
  shortName.origin = detail::TopicName::parse(origin).localName();
  EXPECT_EQ(dlq.list(shortName).size(), 4u);
  DeadLetterFilter onePartition;
  onePartition.origin = partitionOf(origin, 2);
  EXPECT_EQ(payloads(dlq.list(onePartition)), (Strings{"p2", "p2-again"}));

  auto stats = dlq.stats();
  EXPECT_EQ(stats.byOrigin, (std::map<std::string, std::size_t>{{origin, 4}, {other, 1}}));
  EXPECT_EQ(dlq.stats(onePartition).byOrigin, (std::map<std::string, std::size_t>{{origin, 2}}));

  // Shown as stored, with its topic beside it.
  auto first = dlq.list().front();
  EXPECT_EQ(first.originTopic, partitionOf(origin, 0));
  EXPECT_EQ(first.originBaseTopic(), origin);
  auto json = DeadLetterQueue::toJson(first);
  EXPECT_NE(json.find("\"originTopic\":\"" + partitionOf(origin, 0) + "\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"originBaseTopic\":\"" + origin + "\""), std::string::npos) << json;
  EXPECT_EQ(admin().backlog(written.topic(), "reconsume-dlq"), 5) << "reading changed nothing";
}

TEST_P(DeadLetters, ReplaySendsAPartitionsDeadLetterToItsTopicRoutedByKey) {
  constexpr int kPartitions = 4;
  auto origin = uniqueTopic("part-replay");
  admin().createPartitionedTopic(origin, kPartitions);
  ConsumerOptions service;
  service.topics = {origin};
  service.subscription = "billing";
  service.initialPosition = InitialPosition::earliest;
  auto consumer = client().subscribe(service);
  OtherClientsDeadLetters written(client(), origin);
  // Each stored on a partition other than the one its key routes to now.
  std::map<std::string, int> routedTo;
  for (int i = 0; i < 4; ++i) {
    std::string key = "customer-" + std::to_string(i);
    routedTo[key] = partitionForKey(key, kPartitions);
    written.write("order-" + std::to_string(i),
                  partitionOf(origin, (routedTo[key] + 1 + i % 3) % kPartitions), key);
  }
  written.write("unkeyed", partitionOf(origin, 1));
  DeadLetterQueue dlq(client(), admin(), written.topic());

  ReplayOptions dryRun;
  dryRun.dryRun = true;
  auto plan = dlq.replay(dryRun);
  ASSERT_EQ(plan.items.size(), 5u);
  for (const auto& item : plan.items) EXPECT_EQ(item.destination, origin);
  expectNothing(consumer);

  auto result = dlq.replay();
  EXPECT_EQ(result.replayed, 5u) << result.error;
  for (const auto& item : result.items) EXPECT_EQ(item.destination, origin);
  std::set<std::string> arrived;
  for (int i = 0; i < 5; ++i) {
    auto message = receiveNow(consumer);
    arrived.insert(std::string(message.data()));
    auto stored = message.property("REAL_TOPIC");
    ASSERT_TRUE(stored);
    EXPECT_EQ(detail::TopicName::parse(*stored).base().toString(), origin) << "kept as stored";
    if (auto key = message.key()) {
      EXPECT_EQ(message.topic(), partitionOf(origin, routedTo.at(*key))) << *key;
      EXPECT_EQ(message.id().partition(), routedTo.at(*key)) << *key;
      EXPECT_NE(*stored, message.topic()) << "routed by key, not back to where it was stored";
    }
    consumer.acknowledge(message);
  }
  EXPECT_EQ(arrived,
            (std::set<std::string>{"order-0", "order-1", "order-2", "order-3", "unkeyed"}));
  EXPECT_TRUE(dlq.list().empty());
}

TEST_P(DeadLetters, ASuffixThatIsPartOfATopicsOwnNameIsReplayedToThatTopic) {
  auto base = uniqueTopic("audit");  // not partitioned, and does not exist
  auto origin = partitionOf(base, 5);
  client().createProducer(origin).close();  // a plain topic whose name ends in -partition-5
  OtherClientsDeadLetters written(client(), base);
  written.write("entry", origin, "k");
  DeadLetterQueue dlq(client(), admin(), written.topic());
  auto result = dlq.replay();
  EXPECT_EQ(result.replayed, 1u) << result.error;
  ASSERT_EQ(result.items.size(), 1u);
  EXPECT_EQ(result.items[0].destination, origin);
  auto stored = readAll(origin);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].data(), "entry");
  EXPECT_EQ(client().partitionsOf(base), 0) << "asking did not make it partitioned";
}

}  // namespace
}  // namespace reconsume::behaviour
