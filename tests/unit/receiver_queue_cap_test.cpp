// maxTotalReceiverQueueSizeAcrossPartitions: a consumer of several partitions holds at most its
// share per partition. On embedded:// the broker dispatches inline, so what a consumer holds is
// known as soon as the call that published or subscribed returns: a second consumer of the same
// Shared subscription then gets exactly what the first could not hold.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

std::string uniqueUrl() {
  static std::atomic<int> next{0};
  return "embedded://receiver-cap-" + std::to_string(next++);
}

ConsumerOptions options(const std::string& topic) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "workers";
  options.initialPosition = InitialPosition::earliest;
  return options;
}

int drain(Consumer& consumer) {
  int received = 0;
  while (auto message = consumer.receive(0ms)) {
    consumer.acknowledge(*message);
    ++received;
  }
  return received;
}

TEST(ReceiverQueueCap, EachPartitionHoldsItsShareOfTheTotal) {
  auto url = uniqueUrl();
  auto client = Client::connect(url);
  auto admin = Admin::connect(url);
  const std::string topic = "persistent://public/default/capped";
  admin.createPartitionedTopic(topic, 4);
  auto producer = client.createProducer(topic);
  for (int i = 0; i < 40; ++i) producer.send("m" + std::to_string(i));  // 10 per partition

  auto capped = options(topic);
  capped.receiverQueueSize = 100;
  capped.maxTotalReceiverQueueSizeAcrossPartitions = 8;  // 4 partitions: 2 each
  auto first = client.subscribe(capped);
  auto second = client.subscribe(options(topic));
  EXPECT_EQ(drain(second), 32) << "the first consumer holds 2 of each partition's 10";
  EXPECT_EQ(drain(first), 8);
  client.close();
}

TEST(ReceiverQueueCap, ASinglePartitionKeepsItsReceiverQueueSize) {
  auto url = uniqueUrl();
  auto client = Client::connect(url);
  const std::string topic = "persistent://public/default/single";
  auto producer = client.createProducer(topic);
  for (int i = 0; i < 10; ++i) producer.send("m" + std::to_string(i));
  auto capped = options(topic);
  capped.receiverQueueSize = 5;
  capped.maxTotalReceiverQueueSizeAcrossPartitions = 1;  // not partitioned: does not apply
  auto first = client.subscribe(capped);
  auto second = client.subscribe(options(topic));
  EXPECT_EQ(drain(second), 5);
  client.close();
}

TEST(ReceiverQueueCap, AShareIsAtLeastOneMessage) {
  auto url = uniqueUrl();
  auto client = Client::connect(url);
  auto admin = Admin::connect(url);
  const std::string topic = "persistent://public/default/tiny";
  admin.createPartitionedTopic(topic, 3);
  auto producer = client.createProducer(topic);
  for (int i = 0; i < 30; ++i) producer.send("m" + std::to_string(i));
  auto capped = options(topic);
  capped.maxTotalReceiverQueueSizeAcrossPartitions = 1;  // 1 / 3 partitions rounds up to 1
  auto first = client.subscribe(capped);
  auto second = client.subscribe(options(topic));
  EXPECT_EQ(drain(second), 27);
  client.close();
}

}  // namespace
}  // namespace reconsume
