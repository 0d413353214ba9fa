// Routing by error and the total time limit (SPEC.md section 1), on every backend: a failure's
// category picks its policy; a category switching mid-chain continues the count and switches
// policy; a category may go straight to a dead-letter topic of its own; the time limit turns a
// retry past it into a dead letter "expired".
#include <boost/asio/use_future.hpp>
#include <stdexcept>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

struct SlowDownstream : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct RateLimited : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InvalidOrder : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class RoutingByError : public BehaviourTest {
 protected:
  ConsumerOptions routed(const std::string& topic) {
    auto options = retryOptions(topic, "sub", RetryPolicy::levels(DelayLevels::parse("1h")));
    options.categories["slow"].retry = RetryPolicy::levels(DelayLevels::parse("300ms 600ms"), 5);
    options.categories["rate-limited"].retry =
        RetryPolicy::levels(DelayLevels::parse("100ms 200ms"), 2);
    options.categories["invalid"].deadLetter = true;
    options.categories["invalid"].deadLetterTopic = topic + "-invalid";
    options.errorRules.on<SlowDownstream>("slow")
        .on<RateLimited>("rate-limited")
        .on<std::invalid_argument>("invalid");
    return options;
  }
  template <typename E>
  static std::exception_ptr failure(const std::string& what) {
    return std::make_exception_ptr(E(what));
  }
};

TEST_P(RoutingByError, ACategorySwitchingMidChainContinuesTheCountAndSwitchesPolicy) {
  auto topic = uniqueTopic("route-switch");
  auto consumer = client().subscribe(routed(topic));
  client().createProducer(topic).send("order-1");
  auto message = receiveNow(consumer);

  auto due = now() + 300ms;  // "slow", level 1
  consumer.reconsumeLater(message, failure<SlowDownstream>("inventory is slow"));
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("RECONSUMETIMES"), "1");
  EXPECT_EQ(message.property("RECONSUME_CATEGORY"), "slow");
  EXPECT_EQ(message.property("RECONSUME_REASON"), "inventory is slow");

  due = now() + 200ms;  // "rate-limited": the count goes on (2), its table's level 2
  consumer.reconsumeLater(message, failure<RateLimited>("429 from payments"));
  message = receiveAt(consumer, due);
  EXPECT_EQ(message.property("RECONSUMETIMES"), "2");
  EXPECT_EQ(message.property("RECONSUME_CATEGORY"), "rate-limited");
  EXPECT_EQ(message.property("RECONSUME_LEVEL"), "2");

  // "rate-limited" allows 2 retries: the third failure exhausts it.
  consumer.reconsumeLater(message, failure<RateLimited>("429 again"));
  auto dead = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].property("DEAD_LETTER_CAUSE"), "exhausted");
  EXPECT_EQ(dead[0].property("RECONSUME_CATEGORY"), "rate-limited");
  auto history = dead[0].property("RECONSUME_HISTORY").value_or("");
  EXPECT_NE(history.find(R"("category":"slow")"), std::string::npos) << history;
  EXPECT_NE(history.find(R"("category":"rate-limited")"), std::string::npos) << history;
}

TEST_P(RoutingByError, ADeadLetterCategoryGoesStraightToItsOwnTopic) {
  auto topic = uniqueTopic("route-invalid");
  auto consumer = client().subscribe(routed(topic));
  client().createProducer(topic).send("order-2");
  auto message = receiveNow(consumer);
  // The most derived rule: InvalidOrder is a std::invalid_argument.
  consumer.reconsumeLater(message, failure<InvalidOrder>("negative amount"));
  auto dead = readAll(topic + "-invalid");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].property("DEAD_LETTER_CAUSE"), "explicit");
  EXPECT_EQ(dead[0].property("RECONSUME_CATEGORY"), "invalid");
  EXPECT_EQ(dead[0].property("RECONSUME_REASON"), "negative amount");
  EXPECT_TRUE(readAll(*consumer.deadLetterTopic()).empty());
  expectNothing(consumer);
}

TEST_P(RoutingByError, ACategoryNamingTheConsumersDeadLetterTopicKeepsTheOrderOfTheCalls) {
  auto topic = uniqueTopic("route-same-dead");
  auto options = routed(topic);
  options.deadLetterTopic = topic + "-dead";
  options.categories["invalid"].deadLetterTopic = topic + "-dead";
  auto consumer = client().subscribe(options);
  auto producer = client().createProducer(topic);
  for (const char* payload : {"first", "second", "third"}) producer.send(payload);
  // The category's dead letters have reached the topic once already...
  consumer.reconsumeLater(receiveNow(consumer), failure<InvalidOrder>("negative amount"));
  // ...then an explicit dead letter, and another of the category, one call after the other: the
  // second may not overtake the first while the first waits for its producer to be made (a
  // second producer of the same topic, already made, would let it).
  auto explicitly =
      consumer.asyncDeadLetter(receiveNow(consumer), "poison", boost::asio::use_future);
  ReconsumeOptions invalid;
  invalid.category = "invalid";
  auto byCategory =
      consumer.asyncReconsumeLater(receiveNow(consumer), invalid, boost::asio::use_future);
  explicitly.get();
  byCategory.get();
  auto dead = readAll(topic + "-dead");
  ASSERT_EQ(dead.size(), 3u);
  EXPECT_EQ(std::string(dead[0].data()), "first");
  EXPECT_EQ(std::string(dead[1].data()), "second");
  EXPECT_EQ(dead[1].property("DEAD_LETTER_CAUSE"), "explicit");
  EXPECT_EQ(std::string(dead[2].data()), "third");
  EXPECT_EQ(dead[2].property("RECONSUME_CATEGORY"), "invalid");
  expectNothing(consumer);
}

TEST_P(RoutingByError, AnUnknownCategoryFallsToTheDefaultPolicyAndIsRecorded) {
  auto topic = uniqueTopic("route-default");
  auto options = routed(topic);
  options.retry = RetryPolicy::levels(DelayLevels::parse("150ms"), 3);
  auto consumer = client().subscribe(options);
  client().createProducer(topic).send("order-3");
  auto message = receiveNow(consumer);
  ReconsumeOptions by;
  by.category = "nobody-configured-this";
  by.reason = "odd";
  auto due = now() + 150ms;
  consumer.reconsumeLater(message, by);
  auto again = receiveAt(consumer, due);
  EXPECT_EQ(again.property("RECONSUME_CATEGORY"), "nobody-configured-this");
  // An exception no rule knows: the default policy, its what() the reason.
  due = now() + 150ms;
  consumer.reconsumeLater(again, failure<std::out_of_range>("index 7"));
  auto third = receiveAt(consumer, due);
  EXPECT_FALSE(third.property("RECONSUME_CATEGORY"));
  EXPECT_EQ(third.property("RECONSUME_REASON"), "index 7");
}

TEST_P(RoutingByError, TheTimeLimitDeadLettersARetryThatWouldEndPastIt) {
  auto topic = uniqueTopic("route-expired");
  auto consumer = client().subscribe(retryOptions(
      topic, "sub", RetryPolicy::levels(DelayLevels::parse("100ms"), 10).withTimeLimit(150ms)));
  client().createProducer(topic).send("order-4");
  auto message = receiveNow(consumer);
  auto due = now() + 100ms;
  consumer.reconsumeLater(message);  // ends 100 ms after the first failure: within 150 ms
  message = receiveAt(consumer, due);
  ASSERT_TRUE(message.property("FIRST_FAILURE_TIME"));
  consumer.reconsumeLater(message);  // would end at least 200 ms after it
  auto dead = readAll(*consumer.deadLetterTopic());
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].property("DEAD_LETTER_CAUSE"), "expired");
  EXPECT_EQ(dead[0].property("RECONSUMETIMES"), "2");
  expectNothing(consumer);
}

INSTANTIATE_TEST_SUITE_P(Backends, RoutingByError, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
