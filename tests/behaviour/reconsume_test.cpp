// reconsumeLater in its four forms (SPEC.md section 1), the properties it writes (section 2) and
// the topics it uses (section 3), on every backend.
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <future>
#include <set>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Reconsume : public BehaviourTest {};

TEST_P(Reconsume, WalksTheLevelTableThenDeadLetters) {
  auto topic = uniqueTopic("orders");
  auto consumer = client().subscribe(
      retryOptions(topic, "billing", RetryPolicy::levels(DelayLevels::parse("200ms 400ms 800ms"))));
  EXPECT_EQ(consumer.retryTopic(), topic + "-billing-RETRY");
  EXPECT_EQ(consumer.deadLetterTopic(), topic + "-billing-DLQ");

  auto producer = client().createProducer(topic);
  OutgoingMessage order;
  order.payload = "order-1";
  order.key = "customer-7";
  order.properties = {{"tenant", "acme"}};
  auto originalId = producer.send(order);

  auto message = receiveNow(consumer);
  EXPECT_EQ(message.topic(), topic);
  const std::chrono::milliseconds expected[] = {200ms, 400ms, 800ms};
  for (int level = 1; level <= 3; ++level) {
    auto due = now() + expected[level - 1];
    consumer.reconsumeLater(message);
    message = receiveAt(consumer, due);
    SCOPED_TRACE("level " + std::to_string(level));
    EXPECT_EQ(message.topic(), *consumer.retryTopic());
    EXPECT_EQ(message.data(), "order-1");
    EXPECT_EQ(message.key(), "customer-7");
    EXPECT_EQ(message.property("tenant"), "acme");
    EXPECT_EQ(message.property("RECONSUMETIMES"), std::to_string(level));
    EXPECT_EQ(message.property("RECONSUME_LEVEL"), std::to_string(level));
    EXPECT_EQ(message.property("DELAY_TIME"), std::to_string(expected[level - 1].count()));
    EXPECT_EQ(message.property("REAL_TOPIC"), topic);
    EXPECT_EQ(message.property("REAL_SUBSCRIPTION"), "billing");
    EXPECT_EQ(message.property("ORIGIN_MESSAGE_ID"), originalId.toString());
    EXPECT_EQ(message.property("ORIGIN_MESSAGE_IDY_TIME"), originalId.toString());
    EXPECT_TRUE(message.property("FIRST_FAILURE_TIME"));
    auto history = boost::json::parse(*message.property("RECONSUME_HISTORY")).as_array();
    EXPECT_EQ(history.size(), static_cast<std::size_t>(level));
  }

  // The fourth failure passes maxRetries (3, the table's size): dead-lettered, no delay.
  consumer.reconsumeLater(message);
  expectNothing(consumer);
  auto deadLetters = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(deadLetters.size(), 1u);
  const auto& dead = deadLetters.front();
  EXPECT_EQ(dead.data(), "order-1");
  EXPECT_EQ(dead.key(), "customer-7");
  EXPECT_EQ(dead.property("RECONSUMETIMES"), "4");
  EXPECT_EQ(dead.property("DEAD_LETTER_CAUSE"), "exhausted");
  EXPECT_EQ(dead.property("REAL_TOPIC"), topic);
  EXPECT_EQ(dead.property("ORIGIN_MESSAGE_ID"), originalId.toString());
  // The dead-letter topic was created with its initial subscription, holding the message.
  EXPECT_EQ(admin().backlog(*consumer.deadLetterTopic(), "reconsume-dlq"), 1);
  // Every hop acknowledged what it replaced: nothing is left on the main subscription.
  EXPECT_EQ(admin().backlog(topic, "billing"), 0);
}

TEST_P(Reconsume, ExplicitLevelAndExplicitDelay) {
  auto topic = uniqueTopic("explicit");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms 400ms 800ms"))));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  auto due = now() + 800ms;
  consumer.reconsumeLater(message, 3);
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("RECONSUME_LEVEL"), "3");
  EXPECT_EQ(message.property("RECONSUMETIMES"), "1");

  due = now() + 300ms;
  consumer.reconsumeLater(message, 300ms);
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("DELAY_TIME"), "300");
  EXPECT_EQ(message.property("RECONSUMETIMES"), "2");
  EXPECT_FALSE(message.property("RECONSUME_LEVEL")) << "an explicit delay uses no level";

  // Next step counts from RECONSUMETIMES again: the third retry uses level 3.
  due = now() + 800ms;
  consumer.reconsumeLater(message);
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("RECONSUME_LEVEL"), "3");
  consumer.acknowledge(message);
}

TEST_P(Reconsume, ReasonAndCustomPropertiesTravelWithTheMessage) {
  auto topic = uniqueTopic("reasons");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms 400ms"))));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  ReconsumeOptions options;
  options.reason = "payment service timed out";
  options.properties = {{"attempted-by", "worker-3"}, {"RECONSUMETIMES", "99"}};
  auto due = now() + 200ms;
  consumer.reconsumeLater(message, options);
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("RECONSUME_REASON"), "payment service timed out");
  EXPECT_EQ(message.property("attempted-by"), "worker-3");
  EXPECT_EQ(message.property("RECONSUMETIMES"), "1") << "custom properties cannot change the count";
  auto history = boost::json::parse(*message.property("RECONSUME_HISTORY")).as_array();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].at("reason").as_string(), "payment service timed out");
  EXPECT_EQ(history[0].at("n").as_int64(), 1);
  EXPECT_EQ(history[0].at("delay").as_int64(), 200);
  consumer.acknowledge(message);
}

TEST_P(Reconsume, ExponentialBackoffWithFullJitterStaysInBounds) {
  auto topic = uniqueTopic("exponential");
  ExponentialBackoff backoff;
  backoff.min = 100ms;
  backoff.max = 400ms;
  backoff.multiplier = 2.0;
  backoff.jitter = Jitter::full;
  auto consumer =
      client().subscribe(retryOptions(topic, "sub", RetryPolicy::exponential(backoff, 4)));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);

  const std::chrono::milliseconds caps[] = {100ms, 200ms, 400ms, 400ms};
  for (int n = 1; n <= 4; ++n) {
    auto before = now();
    consumer.reconsumeLater(message);
    // The delay drawn is only known from the message: receive it first, then check its bounds
    // and that it did not come before publish + DELAY_TIME.
    if (embedded()) letPass(caps[n - 1]);
    message = receiveNow(consumer);
    auto delay = std::stoll(message.property("DELAY_TIME").value_or("-1"));
    EXPECT_GE(delay, 0);
    EXPECT_LE(delay, caps[n - 1].count()) << "retry " << n;
    EXPECT_GE(now(), before + std::chrono::milliseconds(delay));
    EXPECT_FALSE(message.property("RECONSUME_LEVEL"));
  }
  consumer.reconsumeLater(message);
  auto deadLetters = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(deadLetters.size(), 1u);
  EXPECT_EQ(deadLetters[0].property("RECONSUMETIMES"), "5");
}

TEST_P(Reconsume, AsyncFormCompletesOnceTheOriginalIsAcknowledged) {
  auto topic = uniqueTopic("async");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms"))));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);
  auto due = now() + 200ms;
  auto done = consumer.asyncReconsumeLater(message, boost::asio::use_future);
  ASSERT_EQ(done.wait_for(10s), std::future_status::ready);
  EXPECT_NO_THROW(done.get());
  EXPECT_EQ(admin().backlog(topic, "sub"), 0);
  auto retried = receiveAt(consumer, due);
  EXPECT_EQ(retried.property("RECONSUMETIMES"), "1");
}

// A custom delay function that throws: the call fails naming what it threw — the async form's
// handler too, not an exception out of the initiating call — and the message is neither moved
// nor acknowledged.
TEST_P(Reconsume, ARetryPolicyThatThrowsFailsTheCallAndKeepsTheMessage) {
  auto topic = uniqueTopic("throwing-policy");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::custom([](int) -> std::chrono::milliseconds {
                     throw std::runtime_error("boom");
                   })));
  client().createProducer(topic).send("payload");
  auto message = receiveNow(consumer);
  try {
    consumer.reconsumeLater(message);
    FAIL() << "moved with a delay function that threw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    EXPECT_NE(std::string(e.what()).find("boom"), std::string::npos) << e.what();
  }
  std::future<void> done;
  ASSERT_NO_THROW(done = consumer.asyncReconsumeLater(message, boost::asio::use_future));
  ASSERT_EQ(done.wait_for(10s), std::future_status::ready);
  EXPECT_THROW(done.get(), boost::system::system_error);
  EXPECT_EQ(admin().backlog(topic, "sub"), 1);
  EXPECT_TRUE(readAll(*consumer.retryTopic()).empty());
}

// Client::close() while moves are on their way (SPEC.md section 1): it closes the producers
// first, so a move whose copy was stored acknowledges its original on a consumer still open and
// succeeds; a move that fails left no copy. Never acknowledgement_unconfirmed (a second chain),
// never a bare closed that hides a stored copy.
TEST_P(Reconsume, ClosingTheClientDuringMovesGivesEachMessageOneOutcome) {
  auto topic = uniqueTopic("close-during-moves");
  auto other = connectAnotherClient();
  auto consumer =
      other.subscribe(retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1h"))));
  auto producer = client().createProducer(topic);
  constexpr int kCount = 20;
  for (int i = 0; i < kCount; ++i) producer.send("c" + std::to_string(i));
  std::vector<Message> received;
  for (int i = 0; i < kCount; ++i) received.push_back(receiveNow(consumer));
  // The retry producer exists already: the moves below are on their way when the close starts.
  const auto firstMoved = received.back().id().toString();
  consumer.reconsumeLater(received.back());
  received.pop_back();
  std::vector<std::future<void>> moves;
  for (const auto& message : received) {
    moves.push_back(consumer.asyncReconsumeLater(message, boost::asio::use_future));
  }
  other.close();
  std::set<std::string> moved;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    try {
      moves[i].get();
      moved.insert(received[i].id().toString());
    } catch (const boost::system::system_error& e) {
      EXPECT_NE(e.code(), errc::acknowledgement_unconfirmed)
          << "the close left " << received[i].id().toString() << " with two chains: " << e.what();
    }
  }
  // The first move (before the close) and every one that succeeded have a copy; no other does.
  std::size_t copies = 0;
  for (const auto& copy : readAll(*consumer.retryTopic())) {
    const auto origin = copy.property("ORIGIN_MESSAGE_ID").value_or("");
    EXPECT_TRUE(origin == firstMoved || moved.contains(origin))
        << "a copy of " << origin << ", whose call failed";
    ++copies;
  }
  EXPECT_EQ(copies, moved.size() + 1);
  EXPECT_EQ(admin().backlog(topic, "sub"),
            static_cast<std::int64_t>(received.size() - moved.size()))
      << "the originals of the failed moves, and only those, are still there";
}

// The first calls wait while the consumer creates its retry producer; none may overtake another
// (SPEC.md section 1, "Order"). The copies share a delay, so they come back in publish order.
TEST_P(Reconsume, CopiesOfOneThreadsCallsComeBackInTheOrderOfTheCalls) {
  auto topic = uniqueTopic("ordered");
  auto consumer = client().subscribe(
      retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("200ms"))));
  auto producer = client().createProducer(topic);
  constexpr int kCount = 20;
  for (int i = 0; i < kCount; ++i) producer.send("o" + std::to_string(i));
  std::vector<Message> received;
  for (int i = 0; i < kCount; ++i) received.push_back(receiveNow(consumer));
  const auto due = now() + 200ms;
  std::vector<std::future<void>> retried;
  for (const auto& message : received) {
    retried.push_back(consumer.asyncReconsumeLater(message, boost::asio::use_future));
  }
  for (auto& done : retried) done.get();
  std::vector<std::string> order{std::string(receiveAt(consumer, due).data())};
  while (order.size() < static_cast<std::size_t>(kCount)) {
    order.emplace_back(receiveNow(consumer).data());
  }
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(order[static_cast<std::size_t>(i)], std::string(received[i].data())) << "copy " << i;
  }
}

TEST_P(Reconsume, AKeySharedConsumerRetriesOnAKeySharedSubscriptionAsJavaAndGoDo) {
  // The Java and Go clients subscribe the retry topic with the main subscription's type, and the
  // broker refuses a second type on one subscription: a Key_Shared fleet mixing them with this
  // library once failed to subscribe. Delays still hold (Pulsar delays on Key_Shared too).
  auto topic = uniqueTopic("keyed-retries");
  auto options = retryOptions(topic, "billing", RetryPolicy::levels(DelayLevels::parse("200ms")));
  options.subscriptionType = SubscriptionType::keyShared;
  auto consumer = client().subscribe(options);
  ConsumerOptions likeJava;  // what a Java consumer with enableRetry subscribes on the retry topic
  likeJava.topics = {*consumer.retryTopic()};
  likeJava.subscription = "billing";
  likeJava.subscriptionType = SubscriptionType::keyShared;
  auto javaLike = client().subscribe(likeJava);
  javaLike.close();  // it joined; it leaves so that the retry below comes back here

  OutgoingMessage order;
  order.payload = "order-1";
  order.key = "customer-7";
  client().createProducer(topic).send(order);
  auto message = receiveNow(consumer);
  auto due = now() + 200ms;
  consumer.reconsumeLater(message);
  auto retried = receiveAt(consumer, due);  // not before it is due
  EXPECT_EQ(retried.topic(), *consumer.retryTopic());
  EXPECT_EQ(retried.key(), "customer-7");
  consumer.acknowledge(retried);
}

INSTANTIATE_TEST_SUITE_P(Backends, Reconsume, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
