// Redelivery: by id on Shared and Key_Shared (count raised), everything pending on Exclusive and
// Failover (after onReset), redeliverAll, and messages of consumers that leave.
#include <gtest/gtest.h>

#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

struct RedeliveryFixture {
  Harness harness;
  std::string topic = topicName("t");
  std::shared_ptr<client::BackendProducer> producer = harness.producer(topic);

  std::pair<std::shared_ptr<RecordingSink>, std::shared_ptr<client::BackendConsumer>> consumer(
      SubscriptionType type, int queue = 1000) {
    auto sink = std::make_shared<RecordingSink>();
    auto consumer = harness.subscribe(topic, "s", type, sink, InitialPosition::earliest, queue);
    return {sink, consumer};
  }
};

TEST(EmbeddedRedelivery, SharedRedeliversTheGivenIdsWithTheirCountRaised) {
  RedeliveryFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared);
  auto id0 = send(*f.producer, "0");
  auto id1 = send(*f.producer, "1");
  send(*f.producer, "2");
  consumer->redeliver({id1});
  ASSERT_EQ(sink->payloads(), (Strings{"0", "1", "2", "1"}));
  EXPECT_EQ(sink->messages()[3]->redeliveryCount, 1);
  EXPECT_EQ(sink->messages()[3]->id, id1);
  EXPECT_TRUE(sink->resets().empty());
  consumer->redeliver({id1, id0});
  ASSERT_EQ(sink->payloads(), (Strings{"0", "1", "2", "1", "0", "1"}));  // in entry order
  EXPECT_EQ(sink->messages()[4]->redeliveryCount, 1);
  EXPECT_EQ(sink->messages()[5]->redeliveryCount, 2);
  // The stored message is untouched: the first delivery still reads 0.
  EXPECT_EQ(sink->messages()[1]->redeliveryCount, 0);
}

TEST(EmbeddedRedelivery, SharedRedeliveryMayGoToAnotherConsumer) {
  RedeliveryFixture f;
  auto [busy, c1] = f.consumer(SubscriptionType::shared, /*queue=*/1);
  auto [idle, c2] = f.consumer(SubscriptionType::shared);
  auto id = send(*f.producer, "m");
  ASSERT_EQ(busy->count(), 1u);
  c1->redeliver({id});  // c1 has no permits left
  ASSERT_EQ(idle->payloads(), Strings{"m"});
  EXPECT_EQ(idle->messages()[0]->redeliveryCount, 1);
}

TEST(EmbeddedRedelivery, IdsNotPendingOnTheConsumerAreIgnored) {
  RedeliveryFixture f;
  auto [sink1, c1] = f.consumer(SubscriptionType::shared);
  auto [sink2, c2] = f.consumer(SubscriptionType::shared);
  auto id0 = send(*f.producer, "to c1");
  auto id1 = send(*f.producer, "to c2");
  auto id2 = send(*f.producer, "to c1, acked");
  ack(*c1, *sink1->messages()[1]);
  c1->redeliver({id1, id2, MessageId(id0.ledger(), 77), MessageId(id0.ledger() + 5, 0)});
  EXPECT_EQ(sink1->count(), 2u);
  EXPECT_EQ(sink2->count(), 1u);
}

TEST(EmbeddedRedelivery, KeySharedRedeliversToTheKeysConsumer) {
  RedeliveryFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::keyShared);
  OutgoingMessage message;
  message.key = "k";
  message.payload = "m";
  auto id = send(*f.producer, message);
  consumer->redeliver({id});
  ASSERT_EQ(sink->count(), 2u);
  EXPECT_EQ(sink->messages()[1]->redeliveryCount, 1);
}

TEST(EmbeddedRedelivery, ExclusiveRedeliversEverythingPendingAfterAReset) {
  RedeliveryFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::exclusive);
  auto id0 = send(*f.producer, "0");
  send(*f.producer, "1");
  send(*f.producer, "2");
  ack(*consumer, *sink->messages()[1]);
  consumer->redeliver({id0});
  EXPECT_EQ(sink->resets(), Strings{f.topic});
  EXPECT_EQ(payloadsOf(sink->take()), (Strings{"0", "2"}));  // what arrived after the reset
  // Pulsar's single-active dispatcher keeps no redelivery count.
  EXPECT_EQ(sink->messages().back()->redeliveryCount, 0);
}

TEST(EmbeddedRedelivery, FailoverStandbyCannotAskForRedelivery) {
  RedeliveryFixture f;
  auto [active, c1] = f.consumer(SubscriptionType::failover);
  auto [standby, c2] = f.consumer(SubscriptionType::failover);
  send(*f.producer, "m");
  c2->redeliverAll();
  EXPECT_TRUE(standby->resets().empty());
  EXPECT_TRUE(active->resets().empty());
  EXPECT_EQ(active->count(), 1u);
}

TEST(EmbeddedRedelivery, RedeliverAllResetsTheConsumerAndRegrantsItsPermits) {
  RedeliveryFixture f;
  auto [sink, consumer] = f.consumer(SubscriptionType::shared, /*queue=*/2);
  send(*f.producer, "0");
  send(*f.producer, "1");
  send(*f.producer, "2");
  ASSERT_EQ(sink->count(), 2u);
  sink->take();
  consumer->redeliverAll();
  EXPECT_EQ(sink->resets(), Strings{f.topic});
  auto again = sink->take();
  ASSERT_EQ(payloadsOf(again), (Strings{"0", "1"}));  // the permits are 2 again
  EXPECT_EQ(again[0]->redeliveryCount, 1);
  EXPECT_EQ(again[1]->redeliveryCount, 1);
}

TEST(EmbeddedRedelivery, ClosingAConsumerHandsItsMessagesToTheOthers) {
  RedeliveryFixture f;
  auto [leaving, c1] = f.consumer(SubscriptionType::shared);
  send(*f.producer, "0");
  send(*f.producer, "1");
  auto [staying, c2] = f.consumer(SubscriptionType::shared);
  ack(*c1, *leaving->messages()[0]);
  callStatus([&](auto done) { c1->close(done); }).raiseIfFailed();
  ASSERT_EQ(staying->payloads(), Strings{"1"});
  // Pulsar 4.0.8 does not count a consumer leaving as a redelivery (behaviour test
  // Poison.AMessageArrivingOverTheLimitIsNotHandedToTheApplication shows it on both backends).
  EXPECT_EQ(staying->messages()[0]->redeliveryCount, 0);
}

TEST(EmbeddedRedelivery, ClosingABackendHandsItsConsumersMessagesToOtherClients) {
  RedeliveryFixture f;
  Harness other(uniqueBrokerName(), "", f.harness.clock);  // a second client
  auto leaving = std::make_shared<RecordingSink>();
  auto c1 = other.subscribe(f.topic, "s", SubscriptionType::shared, leaving);
  send(*f.producer, "m");
  ASSERT_EQ(leaving->count(), 1u);
  auto [staying, c2] = f.consumer(SubscriptionType::shared);
  callStatus([&](auto done) { other.backend->close(done); }).raiseIfFailed();
  ASSERT_EQ(staying->payloads(), Strings{"m"});
  EXPECT_EQ(staying->messages()[0]->redeliveryCount, 0);
}

TEST(EmbeddedRedelivery, LastConsumerLeavingStartsTheCountsAfresh) {
  // Pulsar clears its redelivery tracker when a subscription loses its last consumer.
  RedeliveryFixture f;
  auto [first, c1] = f.consumer(SubscriptionType::shared);
  auto id = send(*f.producer, "m");
  c1->redeliver({id});
  ASSERT_EQ(first->messages().back()->redeliveryCount, 1);
  callStatus([&](auto done) { c1->close(done); }).raiseIfFailed();
  auto [second, c2] = f.consumer(SubscriptionType::shared);
  ASSERT_EQ(second->count(), 1u);
  EXPECT_EQ(second->messages()[0]->redeliveryCount, 0);
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
