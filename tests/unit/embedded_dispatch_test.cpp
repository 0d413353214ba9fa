// Who receives what: Shared round-robin, Failover hand-over and partition spreading, Key_Shared
// stickiness.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "embedded/failover_choice.hpp"
#include "embedded_test_support.hpp"

namespace reconsume::detail::embedded::testing {
namespace {

using Strings = std::vector<std::string>;

TEST(EmbeddedShared, RoundRobinAmongConsumers) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < 3; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::shared, sinks.back()));
  }
  for (int i = 0; i < 9; ++i) send(*producer, std::to_string(i));
  EXPECT_EQ(sinks[0]->payloads(), (Strings{"0", "3", "6"}));
  EXPECT_EQ(sinks[1]->payloads(), (Strings{"1", "4", "7"}));
  EXPECT_EQ(sinks[2]->payloads(), (Strings{"2", "5", "8"}));
}

TEST(EmbeddedShared, SkipsConsumersWithoutPermits) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto small = std::make_shared<RecordingSink>();
  auto large = std::make_shared<RecordingSink>();
  auto c1 =
      harness.subscribe(topic, "s", SubscriptionType::shared, small, InitialPosition::earliest, 1);
  auto c2 = harness.subscribe(topic, "s", SubscriptionType::shared, large);
  for (int i = 0; i < 5; ++i) send(*producer, std::to_string(i));
  EXPECT_EQ(small->payloads(), Strings{"0"});
  EXPECT_EQ(large->payloads(), (Strings{"1", "2", "3", "4"}));
}

TEST(EmbeddedFailover, OneConsumerIsActiveByNameWhateverTheOrderTheyJoined) {
  // On a non-partitioned topic the broker's hash ring over the names picks (failover_choice.hpp),
  // not the order of arrival: the same two names pick the same one, joined either way round.
  for (bool zzFirst : {true, false}) {
    Harness harness;
    auto topic = topicName("t");
    auto producer = harness.producer(topic);
    auto zz = std::make_shared<RecordingSink>();
    auto aa = std::make_shared<RecordingSink>();
    std::shared_ptr<client::BackendConsumer> c1, c2;
    auto join = [&](const std::string& name, const std::shared_ptr<RecordingSink>& sink) {
      return harness.subscribe(topic, "s", SubscriptionType::failover, sink,
                               InitialPosition::earliest, 1000, name);
    };
    c1 = zzFirst ? join("zz", zz) : join("aa", aa);
    c2 = zzFirst ? join("aa", aa) : join("zz", zz);
    for (int i = 0; i < 3; ++i) send(*producer, std::to_string(i));
    bool aaActive = failoverActiveIndex(topic, -1, {"aa", "zz"}) == 0;
    EXPECT_EQ(aa->count(), aaActive ? 3u : 0u) << "zz joined first: " << zzFirst;
    EXPECT_EQ(zz->count(), aaActive ? 0u : 3u) << "zz joined first: " << zzFirst;
  }
}

TEST(EmbeddedFailover, WhenTheActiveLeavesItsUnacknowledgedMessagesGoToTheNext) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto first = std::make_shared<RecordingSink>();
  auto second = std::make_shared<RecordingSink>();
  auto c1 = harness.subscribe(topic, "s", SubscriptionType::failover, first);
  auto c2 = harness.subscribe(topic, "s", SubscriptionType::failover, second);
  for (int i = 0; i < 4; ++i) send(*producer, std::to_string(i));
  ack(*c1, *first->messages()[0]);
  ack(*c1, *first->messages()[2]);
  callStatus([&](auto done) { c1->close(done); }).raiseIfFailed();
  send(*producer, "4");
  EXPECT_EQ(second->payloads(), (Strings{"1", "3", "4"}));
  // Pulsar tracks no redelivery count on Failover subscriptions.
  EXPECT_EQ(second->messages()[0]->redeliveryCount, 0);
}

TEST(EmbeddedFailover, PartitionsSpreadOverConsumersSortedByName) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  auto sinkB = std::make_shared<RecordingSink>();
  auto sinkA = std::make_shared<RecordingSink>();
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int partition = 0; partition < 2; ++partition) {
    auto topic = topicName("p-partition-" + std::to_string(partition));
    // "b" connects first everywhere, yet partition 0 goes to "a" (the first by name).
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::failover, sinkB,
                                          InitialPosition::earliest, 1000, "b"));
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::failover, sinkA,
                                          InitialPosition::earliest, 1000, "a"));
  }
  send(*harness.producer(topicName("p-partition-0")), "zero");
  send(*harness.producer(topicName("p-partition-1")), "one");
  EXPECT_EQ(sinkA->payloads(), Strings{"zero"});
  EXPECT_EQ(sinkB->payloads(), Strings{"one"});
}

TEST(EmbeddedFailover, ConsumerSortingFirstTakesOverAPartitionWithItsBacklog) {
  Harness harness;
  harness.admin->createPartitionedTopic(topicName("p"), 2);
  auto topic = topicName("p-partition-0");
  auto producer = harness.producer(topic);
  auto sinkB = std::make_shared<RecordingSink>();
  auto cb = harness.subscribe(topic, "s", SubscriptionType::failover, sinkB,
                              InitialPosition::earliest, 1000, "b");
  send(*producer, "x");
  send(*producer, "y");
  ack(*cb, *sinkB->messages()[0]);
  auto sinkA = std::make_shared<RecordingSink>();
  auto ca = harness.subscribe(topic, "s", SubscriptionType::failover, sinkA,
                              InitialPosition::earliest, 1000, "a");
  EXPECT_EQ(sinkA->payloads(), Strings{"y"});
  send(*producer, "z");
  EXPECT_EQ(sinkA->payloads(), (Strings{"y", "z"}));
  EXPECT_EQ(sinkB->payloads(), (Strings{"x", "y"}));
}

// Which sink got each key, and the payloads per key in order of arrival.
struct KeyView {
  std::map<std::string, std::set<int>> owners;
  std::map<std::string, Strings> order;
};

KeyView byKey(const std::vector<std::shared_ptr<RecordingSink>>& sinks) {
  KeyView view;
  for (int i = 0; i < static_cast<int>(sinks.size()); ++i) {
    for (const auto& m : sinks[i]->messages()) {
      auto key = m->orderingKey ? *m->orderingKey : m->partitionKey.value_or("");
      view.owners[key].insert(i);
      view.order[key].push_back(m->payload.toString());
    }
  }
  return view;
}

TEST(EmbeddedKeyShared, EachKeyStaysWithOneConsumerInOrder) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < 3; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::keyShared, sinks.back(),
                                          InitialPosition::earliest, 1000,
                                          "consumer-" + std::to_string(i)));
  }
  std::map<std::string, Strings> sent;
  for (int round = 0; round < 5; ++round) {
    for (int k = 0; k < 30; ++k) {
      OutgoingMessage message;
      message.key = "key-" + std::to_string(k);
      message.payload = *message.key + "#" + std::to_string(round);
      sent[*message.key].push_back(message.payload);
      send(*producer, message);
    }
  }
  auto view = byKey(sinks);
  std::set<int> used;
  for (const auto& [key, owners] : view.owners) {
    EXPECT_EQ(owners.size(), 1u) << key;
    used.insert(owners.begin(), owners.end());
  }
  EXPECT_EQ(view.order, sent);
  EXPECT_EQ(used.size(), 3u) << "30 keys should spread over 3 consumers";
}

TEST(EmbeddedKeyShared, OrderingKeyWinsAndMessagesWithoutKeyShareOneConsumer) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  std::vector<std::shared_ptr<client::BackendConsumer>> consumers;
  for (int i = 0; i < 4; ++i) {
    sinks.push_back(std::make_shared<RecordingSink>());
    consumers.push_back(harness.subscribe(topic, "s", SubscriptionType::keyShared, sinks.back(),
                                          InitialPosition::earliest, 1000,
                                          "c" + std::to_string(i)));
  }
  for (int i = 0; i < 20; ++i) {
    OutgoingMessage message;
    message.orderingKey = "same";
    message.key = "partition-key-" + std::to_string(i);  // would spread if it counted
    send(*producer, message);
    send(*producer, "no key " + std::to_string(i));
  }
  auto view = byKey(sinks);
  EXPECT_EQ(view.owners["same"].size(), 1u);
  EXPECT_EQ(view.owners[""].size(), 1u);
  EXPECT_EQ(view.order["same"].size(), 20u);
}

TEST(EmbeddedKeyShared, KeyWaitsForItsConsumerWhileOtherKeysFlow) {
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto slow = std::make_shared<RecordingSink>();
  auto fast = std::make_shared<RecordingSink>();
  auto cs = harness.subscribe(topic, "s", SubscriptionType::keyShared, slow,
                              InitialPosition::earliest, 1, "slow");
  auto cf = harness.subscribe(topic, "s", SubscriptionType::keyShared, fast,
                              InitialPosition::earliest, 1000, "fast");
  std::map<std::string, Strings> sent;
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 20; ++k) {
      OutgoingMessage message;
      message.key = "k" + std::to_string(k);
      message.payload = *message.key + "#" + std::to_string(round);
      sent[*message.key].push_back(message.payload);
      send(*producer, message);
    }
  }
  EXPECT_EQ(slow->count(), 1u);
  auto slowKeys = byKey({slow}).owners;
  ASSERT_EQ(slowKeys.size(), 1u);
  // Every message of the keys the fast consumer owns went out at once.
  std::size_t fastExpected = 0;
  auto fastView = byKey({fast});
  for (const auto& [key, payloads] : fastView.order) {
    EXPECT_EQ(payloads, sent[key]) << key;
    fastExpected += sent[key].size();
  }
  EXPECT_EQ(fast->count(), fastExpected);
  EXPECT_GT(fastExpected, 0u);

  cs->flow(1000);
  auto all = byKey({slow, fast});
  EXPECT_EQ(all.order, sent);
  for (const auto& [key, owners] : all.owners) EXPECT_EQ(owners.size(), 1u) << key;
}

TEST(EmbeddedKeyShared, AKeyThatMovesWaitsUntilItsOldConsumerAcknowledgedItsMessages) {
  // Pulsar 4.0 (PIP-379): a joining consumer takes over some keys, but receives none of a key's
  // messages while the old consumer still holds unacknowledged ones of it.
  Harness harness;
  auto topic = topicName("t");
  auto producer = harness.producer(topic);
  auto old = std::make_shared<RecordingSink>();
  auto joiner = std::make_shared<RecordingSink>();
  auto co = harness.subscribe(topic, "s", SubscriptionType::keyShared, old,
                              InitialPosition::earliest, 1000, "old");
  auto send20 = [&](int round) {
    for (int k = 0; k < 20; ++k) {
      OutgoingMessage message;
      message.key = "k" + std::to_string(k);
      message.payload = *message.key + "#" + std::to_string(round);
      send(*producer, message);
    }
  };
  send20(0);
  ASSERT_EQ(old->count(), 20u);  // every key, none acknowledged yet
  auto cj = harness.subscribe(topic, "s", SubscriptionType::keyShared, joiner,
                              InitialPosition::earliest, 1000, "joiner");
  send20(1);
  EXPECT_EQ(joiner->count(), 0u) << "every key the joiner took over is still held by 'old'";
  auto kept = byKey({old}).order;
  std::size_t staying = 0;
  for (const auto& [key, payloads] : kept) staying += payloads.size() == 2 ? 1 : 0;
  EXPECT_GT(staying, 0u) << "the keys 'old' keeps go on flowing to it";
  EXPECT_LT(staying, 20u) << "some keys should have moved to the joiner";

  // Keys nobody held before are not held back, though the joiner's queue holds draining ones.
  for (int k = 0; k < 20; ++k) {
    OutgoingMessage message;
    message.key = "fresh" + std::to_string(k);
    message.payload = *message.key;
    send(*producer, message);
  }
  auto freshToJoiner = joiner->count();
  EXPECT_GT(freshToJoiner, 0u) << "a key the joiner owns and nobody held waited";
  for (const auto& payload : joiner->payloads()) EXPECT_EQ(payload.rfind("fresh", 0), 0u);

  // 'old' acknowledges the first round: the moved keys' second messages go to the joiner.
  for (std::size_t i = 0; i < 20; ++i) ack(*co, *old->messages()[i]);
  EXPECT_EQ(joiner->count(), freshToJoiner + 20u - staying);
  auto all = byKey({old, joiner});
  for (const auto& [key, payloads] : all.order) {
    if (key.rfind("fresh", 0) == 0) continue;
    EXPECT_EQ(payloads, (Strings{key + "#0", key + "#1"})) << key;
  }
}

}  // namespace
}  // namespace reconsume::detail::embedded::testing
