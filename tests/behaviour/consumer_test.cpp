// Producers, consumers and their subscription types, multi-topic and partitioned consumers.
#include <algorithm>
#include <atomic>
#include <boost/asio/use_future.hpp>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "embedded/failover_choice.hpp"
#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Consumers : public BehaviourTest {
 protected:
  ConsumerOptions options(std::vector<std::string> topics, const std::string& subscription,
                          SubscriptionType type = SubscriptionType::shared) {
    ConsumerOptions options;
    options.topics = std::move(topics);
    options.subscription = subscription;
    options.subscriptionType = type;
    options.initialPosition = InitialPosition::earliest;
    return confirmedAcks(options);  // tests read the backlog right after acknowledging
  }
};

TEST_P(Consumers, MessageCarriesWhatWasSent) {
  auto topic = uniqueTopic("fields");
  auto consumer = client().subscribe(options({topic}, "sub"));
  OutgoingMessage sent;
  sent.payload = std::string("bin\0ary", 7);
  sent.key = "k1";
  sent.orderingKey = "ok1";
  sent.properties = {{"a", "1"}, {"b", ""}};
  sent.eventTime =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'123));
  auto id = client().createProducer(topic).send(sent);

  auto message = receiveNow(consumer);
  EXPECT_EQ(message.data(), sent.payload);
  EXPECT_EQ(message.key(), "k1");
  EXPECT_EQ(message.orderingKey(), "ok1");
  EXPECT_EQ(message.properties(), sent.properties);
  EXPECT_EQ(message.eventTime(), sent.eventTime);
  EXPECT_EQ(message.id(), id);
  EXPECT_EQ(message.id().partition(), -1);
  EXPECT_EQ(MessageId::parse(message.id().toString()), message.id());
  EXPECT_EQ(message.topic(), topic);
  EXPECT_EQ(message.redeliveryCount(), 0);
  consumer.acknowledge(message);
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

TEST_P(Consumers, ExclusiveSubscriptionRefusesASecondConsumer) {
  auto topic = uniqueTopic("exclusive");
  auto first = client().subscribe(options({topic}, "only", SubscriptionType::exclusive));
  try {
    client().subscribe(options({topic}, "only", SubscriptionType::exclusive));
    FAIL() << "a second exclusive consumer was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::broker_error) << e.what();
  }
  first.close();
  EXPECT_NO_THROW(client().subscribe(options({topic}, "only", SubscriptionType::exclusive)));
}

TEST_P(Consumers, SharedSubscriptionSpreadsMessagesAndEachIsReceivedOnce) {
  auto topic = uniqueTopic("shared");
  // Small queues, so that neither consumer can take everything in one go.
  auto small = options({topic}, "workers");
  small.receiverQueueSize = 4;
  auto a = client().subscribe(small);
  auto b = client().subscribe(small);
  auto producer = client().createProducer(topic);
  std::set<std::string> sent;
  for (int i = 0; i < 20; ++i) sent.insert(producer.send("m" + std::to_string(i)).toString());

  std::set<std::string> received;
  int fromA = 0, fromB = 0;
  while (received.size() < sent.size()) {
    bool any = false;
    for (auto* consumer : {&a, &b}) {
      if (auto message = consumer->receive(200ms)) {
        EXPECT_TRUE(received.insert(message->id().toString()).second) << "received twice";
        (consumer == &a ? fromA : fromB)++;
        consumer->acknowledge(*message);
        any = true;
      }
    }
    if (!any) break;
  }
  EXPECT_EQ(received, sent);
  EXPECT_GT(fromA, 0);
  EXPECT_GT(fromB, 0);
}

TEST_P(Consumers, KeySharedKeepsEachKeyOnOneConsumer) {
  auto topic = uniqueTopic("key-shared");
  auto a = client().subscribe(options({topic}, "keyed", SubscriptionType::keyShared));
  auto b = client().subscribe(options({topic}, "keyed", SubscriptionType::keyShared));
  auto producer = client().createProducer(topic);
  for (int i = 0; i < 40; ++i) {
    OutgoingMessage message;
    message.key = "key-" + std::to_string(i % 8);
    message.payload = std::to_string(i);
    producer.send(message);
  }
  std::map<std::string, std::set<int>> consumersOfKey;
  std::map<std::string, int> lastOfKey;
  int received = 0;
  for (bool any = true; any && received < 40;) {
    any = false;
    for (int which = 0; which < 2; ++which) {
      auto& consumer = which == 0 ? a : b;
      while (auto message = consumer.receive(200ms)) {
        any = true;
        ++received;
        auto key = *message->key();
        consumersOfKey[key].insert(which);
        int value = std::stoi(std::string(message->data()));
        if (lastOfKey.count(key)) EXPECT_GT(value, lastOfKey[key]) << "order within " << key;
        lastOfKey[key] = value;
        consumer.acknowledge(*message);
      }
    }
  }
  EXPECT_EQ(received, 40);
  for (const auto& [key, consumers] : consumersOfKey) {
    EXPECT_EQ(consumers.size(), 1u) << key << " went to both consumers";
  }
}

TEST_P(Consumers, KeySharedHoldsAMovedKeyBackUntilItsOldConsumerAcknowledgedIt) {
  // Pulsar 4.0 (PIP-379): a consumer joining takes over some keys but receives none of a key's
  // messages while the consumer that had it still holds unacknowledged ones, so one key is never
  // processed by two consumers at once.
  auto topic = uniqueTopic("key-handover");
  auto first = client().subscribe(options({topic}, "keyed", SubscriptionType::keyShared));
  auto producer = client().createProducer(topic);
  auto sendRound = [&](int round) {
    for (int k = 0; k < 20; ++k) {
      OutgoingMessage message;
      message.key = "k" + std::to_string(k);
      message.payload = *message.key + "#" + std::to_string(round);
      producer.send(message);
    }
  };
  sendRound(0);
  std::vector<Message> held;
  for (int i = 0; i < 20; ++i) held.push_back(receiveNow(first));
  auto joiner = client().subscribe(options({topic}, "keyed", SubscriptionType::keyShared));
  sendRound(1);
  std::set<std::string> kept;  // keys whose second message still went to the first consumer
  while (auto message = first.receive(1s)) {
    EXPECT_EQ(std::string(message->data()), *message->key() + "#1");
    kept.insert(*message->key());
    held.push_back(*message);
  }
  EXPECT_FALSE(joiner.receive(300ms)) << "a moved key went to the joiner while still held";

  // Keys nobody held before flow to the joiner meanwhile: only the moved ones wait.
  for (int k = 0; k < 20; ++k) {
    OutgoingMessage message;
    message.key = "fresh" + std::to_string(k);
    message.payload = *message.key;
    producer.send(message);
  }
  int freshToJoiner = 0;
  while (auto message = joiner.receive(1s)) {
    EXPECT_EQ(message->data().substr(0, 5), "fresh") << message->data();
    ++freshToJoiner;
    joiner.acknowledge(*message);
  }
  EXPECT_GT(freshToJoiner, 0) << "20 fresh keys, none to the joiner: it was held back whole";
  while (auto message = first.receive(300ms)) held.push_back(*message);

  for (const auto& message : held) first.acknowledge(message);
  std::set<std::string> moved;
  for (std::size_t i = 0; i < 20 - kept.size(); ++i) {
    auto message = receiveNow(joiner);
    EXPECT_EQ(std::string(message.data()), *message.key() + "#1") << "in order, once";
    EXPECT_FALSE(kept.count(*message.key())) << *message.key() << " went to both";
    moved.insert(*message.key());
    joiner.acknowledge(message);
  }
  EXPECT_EQ(kept.size() + moved.size(), 20u);
  EXPECT_FALSE(moved.empty()) << "20 keys and two consumers: some keys should have moved";
}

TEST_P(Consumers, FailoverHasOneActiveConsumerAndHandsOverOnClose) {
  auto topic = uniqueTopic("failover");
  auto a = client().subscribe(options({topic}, "standby", SubscriptionType::failover));
  auto b = client().subscribe(options({topic}, "standby", SubscriptionType::failover));
  auto producer = client().createProducer(topic);
  for (int i = 0; i < 5; ++i) producer.send("m" + std::to_string(i));

  // Every message goes to the one active consumer; nothing to the standby one.
  std::vector<Message> onA, onB;
  auto deadline = std::chrono::steady_clock::now() + kDueWithin;
  while (onA.size() + onB.size() < 5 && std::chrono::steady_clock::now() < deadline) {
    if (auto m = a.receive(100ms)) onA.push_back(*m);
    if (auto m = b.receive(100ms)) onB.push_back(*m);
  }
  ASSERT_EQ(onA.size() + onB.size(), 5u);
  ASSERT_TRUE(onA.empty() || onB.empty()) << onA.size() << " on a, " << onB.size() << " on b";
  auto& active = onA.empty() ? b : a;
  auto& standby = onA.empty() ? a : b;

  // The active one leaves without acknowledging: the standby one takes over and gets them all.
  active.close();
  std::set<std::string> handedOver;
  for (int i = 0; i < 5; ++i) {
    auto message = receiveNow(standby);
    handedOver.insert(std::string(message.data()));
    standby.acknowledge(message);
  }
  EXPECT_EQ(handedOver.size(), 5u);
}

// Which consumer of a Failover subscription is active is the broker's choice by name
// (failover_choice.hpp); on pulsar:// this checks that choice against the real broker.
std::string expectedActive(const std::string& topic, int partition,
                           std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::vector<std::string_view> views(names.begin(), names.end());
  return names[detail::embedded::failoverActiveIndex(topic, partition, views)];
}

TEST_P(Consumers, FailoverPicksTheActiveConsumerByNameNotByTheOrderTheyJoined) {
  auto topic = uniqueTopic("failover-names");
  const std::vector<std::string> names{"alpha", "beta", "gamma"};
  const auto expected = expectedActive(topic, -1, names);
  auto producer = client().createProducer(topic);
  for (const auto& [subscription, order] : std::vector<std::pair<std::string, std::vector<int>>>{
           {"forward", {0, 1, 2}}, {"backward", {2, 1, 0}}}) {
    std::vector<std::pair<std::string, Consumer>> consumers;
    for (int which : order) {
      auto consumerOptions = options({topic}, subscription, SubscriptionType::failover);
      consumerOptions.initialPosition = InitialPosition::latest;  // not the other's messages
      consumerOptions.consumerName = names[which];
      consumers.emplace_back(names[which], client().subscribe(consumerOptions));
    }
    for (int i = 0; i < 3; ++i) producer.send(subscription + std::to_string(i));
    std::map<std::string, int> receivedBy;
    int received = 0;
    auto deadline = std::chrono::steady_clock::now() + kDueWithin;
    while (received < 3 && std::chrono::steady_clock::now() < deadline) {
      for (auto& [name, consumer] : consumers) {
        if (auto message = consumer.receive(50ms)) {
          ++receivedBy[name];
          ++received;
          consumer.acknowledge(*message);
        }
      }
    }
    EXPECT_EQ(receivedBy, (std::map<std::string, int>{{expected, 3}}))
        << subscription << ": joined in the order " << names[order[0]] << ", " << names[order[1]]
        << ", " << names[order[2]];
    for (auto& [name, consumer] : consumers) consumer.close();
  }
}

TEST_P(Consumers, FailoverSpreadsThePartitionsOverTheConsumersSortedByName) {
  auto topic = uniqueTopic("failover-partitions");
  admin().createPartitionedTopic(topic, 3);
  const std::vector<std::string> names{"beta", "alpha"};  // joined in this order
  std::vector<std::pair<std::string, Consumer>> consumers;
  for (const auto& name : names) {
    auto consumerOptions = options({topic}, "spread", SubscriptionType::failover);
    consumerOptions.consumerName = name;
    consumers.emplace_back(name, client().subscribe(consumerOptions));
  }
  auto producer = client().createProducer(topic);
  for (int i = 0; i < 30; ++i) {
    OutgoingMessage message;
    message.key = "k" + std::to_string(i);
    message.payload = std::to_string(i);
    producer.send(message);
  }
  std::set<int> partitions;
  int received = 0;
  auto deadline = std::chrono::steady_clock::now() + kDueWithin;
  while (received < 30 && std::chrono::steady_clock::now() < deadline) {
    for (auto& [name, consumer] : consumers) {
      if (auto message = consumer.receive(50ms)) {
        ++received;
        int partition = message->id().partition();
        partitions.insert(partition);
        EXPECT_EQ(name, expectedActive(topic + "-partition-" + std::to_string(partition), partition,
                                       names))
            << "partition " << partition;
        consumer.acknowledge(*message);
      }
    }
  }
  EXPECT_EQ(received, 30);
  EXPECT_EQ(partitions.size(), 3u) << "the keys should reach every partition";
}

TEST_P(Consumers, SeveralThreadsReceiveAndReconsumeAtOnce) {
  auto topic = uniqueTopic("threads");
  auto consumerOptions = options({topic}, "sub");
  consumerOptions.retry = RetryPolicy::levels(DelayLevels::parse("100ms"));
  auto consumer = client().subscribe(consumerOptions);
  auto producer = client().createProducer(topic);
  constexpr int kMessages = 200;
  for (int i = 0; i < kMessages; ++i) producer.send(std::to_string(i));

  // Each message fails once (reconsumed), then succeeds; four threads share the consumer.
  std::mutex mutex;
  std::map<std::string, int> attempts;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      while (done < kMessages) {
        auto message = consumer.receive(100ms);
        if (!message) {
          letPass(100ms);  // on embedded, the retries fall due as the clock moves
          continue;
        }
        int attempt;
        {
          std::lock_guard lock(mutex);
          attempt = ++attempts[std::string(message->data())];
        }
        if (attempt == 1) {
          consumer.reconsumeLater(*message);
        } else {
          consumer.acknowledge(*message);
          ++done;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(attempts.size(), static_cast<std::size_t>(kMessages));
  for (const auto& [payload, count] : attempts) EXPECT_EQ(count, 2) << payload;
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
}

TEST_P(Consumers, OneConsumerReadsSeveralTopics) {
  auto first = uniqueTopic("multi-a");
  auto second = uniqueTopic("multi-b");
  auto consumer = client().subscribe(options({first, second}, "sub"));
  EXPECT_EQ(consumer.topics(), (std::vector<std::string>{first, second}));
  client().createProducer(first).send("from a");
  client().createProducer(second).send("from b");
  std::set<std::string> topics;
  for (int i = 0; i < 2; ++i) {
    auto message = receiveNow(consumer);
    topics.insert(message.topic());
    consumer.acknowledge(message);
  }
  EXPECT_EQ(topics, (std::set<std::string>{first, second}));
}

TEST_P(Consumers, PartitionedTopicWithRetries) {
  auto topic = uniqueTopic("partitioned");
  admin().createPartitionedTopic(topic, 3);
  EXPECT_EQ(client().partitionsOf(topic), 3);
  auto consumerOptions = options({topic}, "sub");
  consumerOptions.retry = RetryPolicy::levels(DelayLevels::parse("200ms"));
  auto consumer = client().subscribe(consumerOptions);
  auto producer = client().createProducer(topic);

  std::map<std::string, std::string> partitionOfKey;
  for (int i = 0; i < 30; ++i) {
    OutgoingMessage message;
    message.key = "k" + std::to_string(i % 6);
    message.payload = std::to_string(i);
    producer.send(message);
  }
  std::set<int> partitions;
  std::optional<Message> kept;
  for (int i = 0; i < 30; ++i) {
    auto message = receiveNow(consumer);
    partitions.insert(message.id().partition());
    auto [it, fresh] = partitionOfKey.emplace(*message.key(), message.topic());
    EXPECT_EQ(it->second, message.topic()) << "one key, one partition";
    EXPECT_TRUE(message.topic().starts_with(topic + "-partition-"));
    if (kept) {
      consumer.acknowledge(message);
    } else {
      kept = message;
    }
  }
  // A message of a partition goes through the (non-partitioned) retry topic and back.
  auto due = now() + 200ms;
  consumer.reconsumeLater(*kept);
  auto retried = receiveAt(consumer, due);
  EXPECT_EQ(retried.property("REAL_TOPIC"), topic) << "without the partition suffix";
  EXPECT_EQ(retried.property("ORIGIN_MESSAGE_ID"), kept->id().toString());
  consumer.acknowledge(retried);
  EXPECT_GT(partitions.size(), 1u);
  EXPECT_EQ(consumer.retryTopic(), topic + "-sub-RETRY");
}

TEST_P(Consumers, DelayedDeliveryIsIgnoredOnExclusiveSubscriptions) {
  auto topic = uniqueTopic("exclusive-delay");
  auto consumer = client().subscribe(options({topic}, "sub", SubscriptionType::exclusive));
  OutgoingMessage message;
  message.payload = "now";
  message.deliverAfter = std::chrono::hours(1);
  client().createProducer(topic).send(message);
  EXPECT_EQ(receiveNow(consumer).data(), "now");
}

TEST_P(Consumers, DelayedDeliveryOnSharedSubscriptions) {
  auto topic = uniqueTopic("shared-delay");
  auto consumer = client().subscribe(options({topic}, "sub"));
  OutgoingMessage message;
  message.payload = "later";
  message.deliverAfter = 500ms;
  auto due = now() + 500ms;
  client().createProducer(topic).send(message);
  EXPECT_EQ(receiveAt(consumer, due).data(), "later");
}

TEST_P(Consumers, ReceiveAfterCloseIsAnError) {
  auto consumer = client().subscribe(options({uniqueTopic("closed")}, "sub"));
  auto pending = consumer.asyncReceive(boost::asio::use_future);
  consumer.close();
  ASSERT_EQ(pending.wait_for(10s), std::future_status::ready);
  try {
    pending.get();
    FAIL() << "a pending receive completed with a message after close";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::closed);
  }
  EXPECT_THROW(consumer.receive(10ms), Error);
}

TEST_P(Consumers, TheEndOfATerminatedTopicIsLoggedFromTheLibrarysThreadNotInsideTheCall) {
  // The application's Logger hears that the consumer read a terminated topic to its end. It runs
  // on the library's own thread, with no lock of the library held, on every backend — not inside
  // the call that ended the topic, where the embedded broker holds the topic's lock and a Logger
  // calling back into the library would deadlock.
  std::promise<std::thread::id> loggedOn;
  std::atomic<bool> logged{false};
  ClientOptions logging;
  logging.logger = [&](LogLevel level, std::string_view message) {
    if (level == LogLevel::warn && message.find(" ended: ") != std::string_view::npos &&
        !logged.exchange(true)) {
      loggedOn.set_value(std::this_thread::get_id());
    }
  };
  auto other = connectAnotherClient(logging);
  auto topic = uniqueTopic("ended");
  auto consumer = other.subscribe(options({topic}, "sub"));
  admin().terminateTopic(topic);
  auto warned = loggedOn.get_future();
  ASSERT_EQ(warned.wait_for(kDueWithin), std::future_status::ready)
      << "no warning that the consumer of " << topic << " reached its end";
  EXPECT_NE(warned.get(), std::this_thread::get_id());
  consumer.close();
  other.close();
}

INSTANTIATE_TEST_SUITE_P(Backends, Consumers, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
