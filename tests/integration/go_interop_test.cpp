// reconsume and the official Go client (github.com/apache/pulsar-client-go v0.19.0, driven by
// tests/interop-go) on the same topics, through the pulsar:// backend:
//   - retry copies our retry batching put into shared entries are read by a Go retry consumer,
//     each once, with its own properties;
//   - retries hop between the two clients on one subscription — each reads the other's
//     RECONSUMETIMES and origin properties — and the message dead-letters at the same count,
//     whichever client makes the last hop (Go's DLQPolicy.MaxDeliveries = our maxRetries), into
//     the dead-letter topic we would use;
//   - where the Go client writes otherwise than we do (its ORIGIN_MESSAGE_ID names partition 0 of
//     a topic that is not partitioned; it writes no REAL_SUBSCRIPTION) we keep what it wrote;
//   - 1,000 keyed messages a Go producer batches by default are received one by one, each
//     exactly once, and acknowledging them empties the subscription's backlog.
#include "integration/go_interop.hpp"

#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "integration/backlog_wait.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

constexpr int kGoMaxRetries = 3;
constexpr const char* kGoDelayMs = "200";

// The ORIGIN_MESSAGE_ID the Go client writes for a message of a topic that is not partitioned:
// "ledger:entry:partition" without a batch index, and partition 0 where we (and Java) write -1.
std::string goOriginId(const MessageId& id) {
  return std::to_string(id.ledger()) + ":" + std::to_string(id.entry()) + ":0";
}

class GoInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    ClientOptions options;
    options.operationTimeout = 30s;
    client_ = Client::connect(pulsar().serviceUrl, options);
    admin_ = Admin::connect(pulsar().adminUrl, pulsar().adminOptions());
  }
  void TearDown() override { client_.close(); }

  // Our consumer of the topic (and its retry topic), with the same bound as Go's.
  Consumer ours(const std::string& topic) {
    ConsumerOptions options;
    options.topics = {topic};
    options.subscription = "interop";
    options.initialPosition = InitialPosition::earliest;
    options.retry = RetryPolicy::levels(DelayLevels::parse("200ms 200ms 200ms"), kGoMaxRetries);
    return client_.subscribe(options);
  }

  // One hop by the Go client: receive one message (from the topic or its retry topic) and
  // ReconsumeLater it with 200 ms. The run's "subscribed" line goes to `subscribed`.
  // `retryBacklog`: what is left unacknowledged on the retry topic afterwards (the new retry, or
  // nothing once Go dead-lettered it).
  boost::json::object goHop(const std::string& topic, std::int64_t retryBacklog = 1,
                            boost::json::object* subscribed = nullptr) {
    GoRun run =
        runGo("retry-participant", {"--topic", topic, "--subscription", "interop",
                                    "--max-redeliver", std::to_string(kGoMaxRetries), "--receive",
                                    "1", "--then", "retry", "--delay-ms", kGoDelayMs});
    EXPECT_EQ(run.exitCode, 0) << run.output;
    if (subscribed != nullptr && !run.events("subscribed").empty()) {
      *subscribed = run.events("subscribed")[0];
    }
    auto messages = run.events("message");
    if (messages.size() != 1) {
      ADD_FAILURE() << "the Go consumer received " << messages.size() << " messages:\n"
                    << run.output;
      return {};
    }
    // The participant waits until the Go client acknowledged the message (after its copy was
    // sent) and closes, which sends the acknowledgement; check that the broker has it so the
    // next hop does not get the old message again.
    waitForBacklog(topic + "-interop-RETRY", retryBacklog);
    return messages[0];
  }

  void waitForBacklog(const std::string& topic, std::int64_t expected) {
    EXPECT_EQ(awaitBacklog(admin_, topic, "interop", expected), expected)
        << "the backlog of 'interop' on " << topic;
  }

  // What the dead-letter topic holds, read with our reader.
  std::vector<Message> deadLetters(const std::string& topic) {
    auto reader = client_.createReader(topic + "-interop-DLQ");
    std::vector<Message> found;
    while (reader.hasMessageAvailable()) {
      auto message = reader.readNext(10s);
      if (!message) break;
      found.push_back(*message);
    }
    return found;
  }

  Client client_;
  Admin admin_;
};

TEST_F(GoInterop, RetryCopiesSharingEntriesAreEachReadByAGoRetryConsumer) {
  std::string topic = uniqueTopic("go-interop-retry-batches");
  constexpr int kCount = 20;
  auto consumer = ours(topic);
  auto producer = client_.createProducer(topic);
  for (int i = 0; i < kCount; ++i) {
    producer.send(OutgoingMessage{.payload = "retry-" + std::to_string(i),
                                  .properties = {{"n", std::to_string(i)}}});
  }
  std::vector<Message> received;
  std::map<std::string, std::string> originalIds;
  while (received.size() < kCount) {
    auto message = consumer.receive(15s);
    ASSERT_TRUE(message) << "received " << received.size() << " of " << kCount;
    originalIds[std::string(message->data())] = message->id().toString();
    received.push_back(*message);
  }
  // All at once, so that the copies (due 200 ms later, within the 10 ms window) share entries.
  std::vector<std::future<void>> retried;
  for (const auto& message : received) {
    retried.push_back(consumer.asyncReconsumeLater(message, boost::asio::use_future));
  }
  for (auto& done : retried) done.get();
  consumer.close();

  GoRun run = runGo("retry-participant", {"--topic", topic, "--subscription", "interop",
                                          "--max-redeliver", std::to_string(kGoMaxRetries),
                                          "--receive", std::to_string(kCount), "--then", "ack"});
  ASSERT_EQ(run.exitCode, 0) << run.output;
  auto messages = run.events("message");
  ASSERT_EQ(messages.size(), static_cast<std::size_t>(kCount)) << run.output;
  std::set<std::string> payloads;
  int fromBatches = 0;
  for (const auto& line : messages) {
    auto payload = text(line, "payload");
    payloads.insert(payload);
    EXPECT_EQ(text(line, "topic"), topic + "-interop-RETRY") << payload;
    EXPECT_EQ("retry-" + property(line, "n").value_or("?"), payload)
        << "each copy keeps its own properties";
    EXPECT_EQ(property(line, "RECONSUMETIMES"), "1") << payload;
    EXPECT_EQ(property(line, "REAL_TOPIC"), topic) << payload;
    EXPECT_EQ(property(line, "ORIGIN_MESSAGE_ID"), originalIds[payload]) << payload;
    if (line.at("batchIndex").as_int64() >= 0) ++fromBatches;
  }
  EXPECT_EQ(payloads.size(), static_cast<std::size_t>(kCount)) << "each copy once";
  EXPECT_GT(fromBatches, 1) << "the copies were expected to share entries:\n" << run.output;
  waitForBacklog(topic + "-interop-RETRY", 0);
}

TEST_F(GoInterop, RetriesHopBetweenTheClientsAndGoDeadLettersWhereWeWould) {
  std::string topic = uniqueTopic("go-interop-retry-go-last");
  OutgoingMessage order;
  order.payload = "order-17";
  order.key = "customer-4";
  order.properties = {{"tenant", "acme"}};
  auto originalId = client_.createProducer(topic).send(order);

  std::string firstFailureTime;
  {  // Hop 1: ours.
    auto consumer = ours(topic);
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->data(), "order-17");
    consumer.reconsumeLater(*message);
    consumer.close();
  }
  // Hop 2: Go reads our retry message; it derived the retry and dead-letter topics we use.
  boost::json::object subscribed;
  auto fromUs = goHop(topic, 1, &subscribed);
  ASSERT_FALSE(fromUs.empty());
  EXPECT_EQ(text(subscribed, "retryTopic"), topic + "-interop-RETRY");
  EXPECT_EQ(text(subscribed, "deadLetterTopic"), topic + "-interop-DLQ");
  EXPECT_EQ(text(fromUs, "topic"), topic + "-interop-RETRY");
  EXPECT_EQ(text(fromUs, "payload"), "order-17");
  EXPECT_EQ(text(fromUs, "key"), "customer-4");
  EXPECT_EQ(property(fromUs, "RECONSUMETIMES"), "1");
  EXPECT_EQ(property(fromUs, "REAL_TOPIC"), topic);
  EXPECT_EQ(property(fromUs, "ORIGIN_MESSAGE_ID"), originalId.toString());
  EXPECT_EQ(property(fromUs, "tenant"), "acme");
  firstFailureTime = property(fromUs, "FIRST_FAILURE_TIME").value_or("");
  EXPECT_FALSE(firstFailureTime.empty()) << "our first hop writes it";
  {  // Hop 3: ours reads Go's.
    auto consumer = ours(topic);
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->topic(), topic + "-interop-RETRY");
    EXPECT_EQ(message->property("RECONSUMETIMES"), "2");
    EXPECT_EQ(message->property("DELAY_TIME"), kGoDelayMs);
    EXPECT_EQ(message->property("REAL_TOPIC"), topic);
    EXPECT_EQ(message->property("ORIGIN_MESSAGE_ID"), originalId.toString());
    EXPECT_EQ(message->property("ORIGIN_MESSAGE_IDY_TIME"), originalId.toString());
    EXPECT_EQ(message->property("FIRST_FAILURE_TIME"), firstFailureTime) << "Go copies ours";
    EXPECT_EQ(message->property("tenant"), "acme");
    EXPECT_EQ(message->key(), "customer-4");
    consumer.reconsumeLater(*message);
    consumer.close();
  }
  // Hop 4: RECONSUMETIMES would be 4 > 3: Go dead-letters it.
  auto last = goHop(topic, 0);
  EXPECT_EQ(property(last, "RECONSUMETIMES"), "3");
  auto dead = deadLetters(topic);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].data(), "order-17");
  EXPECT_EQ(dead[0].key(), "customer-4");
  EXPECT_EQ(dead[0].property("RECONSUMETIMES"), "4");
  EXPECT_EQ(dead[0].property("REAL_TOPIC"), topic);
  EXPECT_EQ(dead[0].property("ORIGIN_MESSAGE_ID"), originalId.toString());
  EXPECT_EQ(dead[0].property("FIRST_FAILURE_TIME"), firstFailureTime);
  EXPECT_EQ(dead[0].property("tenant"), "acme");
  // Go writes none of our keys: a dead letter of its making has no cause (`dlq list`: unknown).
  EXPECT_FALSE(dead[0].property("DEAD_LETTER_CAUSE"));
}

TEST_F(GoInterop, RetriesHopBetweenTheClientsAndWeDeadLetterWhereGoWould) {
  std::string topic = uniqueTopic("go-interop-retry-ours-last");
  OutgoingMessage order;
  order.payload = "order-9";
  order.key = "k9";
  order.properties = {{"color", "blue"}};
  auto originalId = client_.createProducer(topic).send(order);

  auto first = goHop(topic);  // Hop 1: Go, from the topic itself.
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(text(first, "topic"), topic);
  for (int hop = 2; hop <= 4; hop += 2) {
    {  // Hops 2 and 4: ours.
      auto consumer = ours(topic);
      auto message = consumer.receive(10s);
      ASSERT_TRUE(message);
      EXPECT_EQ(message->property("RECONSUMETIMES"), std::to_string(hop - 1));
      EXPECT_EQ(message->property("REAL_TOPIC"), topic);
      // Go's form of the original id, which we keep (first hop wins).
      EXPECT_EQ(message->property("ORIGIN_MESSAGE_ID"), goOriginId(originalId));
      EXPECT_EQ(message->property("ORIGIN_MESSAGE_IDY_TIME"), goOriginId(originalId));
      EXPECT_EQ(message->property("color"), "blue");
      if (hop == 2) {
        EXPECT_EQ(message->property("DELAY_TIME"), kGoDelayMs);
        EXPECT_FALSE(message->property("REAL_SUBSCRIPTION")) << "Java writes it, Go does not";
      }
      consumer.reconsumeLater(*message);
      consumer.close();
    }
    if (hop == 2) {  // Hop 3: Go.
      auto third = goHop(topic);
      EXPECT_EQ(property(third, "RECONSUMETIMES"), "2");
      EXPECT_EQ(property(third, "REAL_SUBSCRIPTION"), "interop") << "our hop 2 wrote it";
    }
  }
  auto dead = deadLetters(topic);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].data(), "order-9");
  EXPECT_EQ(dead[0].property("RECONSUMETIMES"), "4");
  EXPECT_EQ(dead[0].property("DEAD_LETTER_CAUSE"), "exhausted");
  EXPECT_EQ(dead[0].property("ORIGIN_MESSAGE_ID"), goOriginId(originalId));
  EXPECT_EQ(dead[0].property("REAL_TOPIC"), topic);
  EXPECT_EQ(dead[0].key(), "k9");
  // Nothing is left on the retry topic's subscription.
  waitForBacklog(topic + "-interop-RETRY", 0);
}

TEST_F(GoInterop, ThousandKeyedMessagesBatchedByGoAreEachReceivedOnceAndAcknowledged) {
  std::string topic = uniqueTopic("go-interop-batches");
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "batches";
  options.initialPosition = InitialPosition::earliest;
  auto consumer = client_.subscribe(options);

  GoRun run = runGo("batch-producer", {"--topic", topic, "--count", "1000", "--keys", "16"});
  ASSERT_EQ(run.exitCode, 0) << run.output;
  auto sent = run.events("sent");
  ASSERT_EQ(sent.size(), 1000u);
  std::set<std::pair<std::int64_t, std::int64_t>> entries;
  for (const auto& line : sent) {
    entries.emplace(line.at("ledgerId").as_int64(), line.at("entryId").as_int64());
  }
  EXPECT_LT(entries.size(), 1000u) << "the Go producer batched nothing";

  std::map<std::string, int> received;
  std::map<std::string, std::string> keyOf;
  int batched = 0;
  while (received.size() < 1000) {
    auto message = consumer.receive(15s);
    if (!message) break;
    std::string payload(message->data());
    ++received[payload];
    keyOf[payload] = message->key().value_or("");
    if (message->id().batchIndex() >= 0) ++batched;
    consumer.acknowledge(*message);
  }
  ASSERT_EQ(received.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    auto payload = "message-" + std::to_string(i);
    EXPECT_EQ(received[payload], 1) << payload;
    EXPECT_EQ(keyOf[payload], "key-" + std::to_string(i % 16)) << payload;
  }
  EXPECT_GT(batched, 500) << "most messages came out of batch entries";
  EXPECT_FALSE(consumer.receive(500ms)) << "a message came twice";
  auto subscriptions = admin_.subscriptions(topic);
  ASSERT_EQ(subscriptions.size(), 1u);
  EXPECT_EQ(subscriptions[0].name, "batches");
  EXPECT_EQ(subscriptions[0].backlog, 0);
}

}  // namespace
}  // namespace reconsume::integration
