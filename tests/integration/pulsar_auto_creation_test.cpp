// A broker that creates a partitioned topic whenever it is asked about one
// (allowAutoTopicCreationType=partitioned): subscribing with a retry policy asks whether the
// legacy retry and dead-letter names (<namespace>/<subscription>-RETRY, -DLQ) exist, and must
// leave neither behind — the question goes with metadata auto-creation off, as the Java client
// asks it. Run by the ctest entry reconsume_integration_auto_creation, which starts the
// standalone with that setting (scripts/with-pulsar.sh --conf), so it runs alone.
#include <gtest/gtest.h>

#include <string>

#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

TEST(PulsarPartitionedAutoCreation, SubscribingWithRetriesLeavesNoLegacyTopicsBehind) {
  auto client = Client::connect(pulsar().serviceUrl);
  auto admin = Admin::connect(pulsar().adminUrl, pulsar().adminOptions());

  // The broker is configured as this test needs: a plain question creates a partitioned topic.
  auto asked = uniqueTopic("asked");
  ASSERT_GT(client.partitionsOf(asked), 0)
      << "the broker does not create partitioned topics on demand; start it with "
         "scripts/with-pulsar.sh --conf allowAutoTopicCreationType=partitioned";

  auto topic = uniqueTopic("autocreate");
  // The subscription name is unique too: the legacy names are per namespace and subscription.
  auto subscription = "sub-" + topic.substr(topic.rfind('/') + 1);
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = subscription;
  options.retry = RetryPolicy::levels(DelayLevels::parse("1s"));
  auto consumer = client.subscribe(options);
  EXPECT_EQ(*consumer.retryTopic(), topic + "-" + subscription + "-RETRY");
  EXPECT_EQ(*consumer.deadLetterTopic(), topic + "-" + subscription + "-DLQ");

  for (const auto& legacy : {"persistent://public/default/" + subscription + "-RETRY",
                             "persistent://public/default/" + subscription + "-DLQ"}) {
    EXPECT_EQ(admin.partitions(legacy), 0) << legacy << " was created as a partitioned topic";
    EXPECT_FALSE(admin.topicExists(legacy)) << legacy << " was created";
  }
  consumer.close();
  client.close();
}

}  // namespace
}  // namespace reconsume::integration
