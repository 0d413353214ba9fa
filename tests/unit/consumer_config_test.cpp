#include "reconsume/consumer_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "expect_error.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using testing::invalidArgumentText;
using testing::mentions;

const std::filesystem::path kExamples =
    std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "examples";

std::string errorOf(std::string_view json,
                    const BackoffRegistry& registry = BackoffRegistry::builtin()) {
  return invalidArgumentText([&] { parseConsumerOptions(json, registry); });
}

const auto* multiplierOf(const std::shared_ptr<const RedeliveryBackoff>& backoff) {
  return dynamic_cast<const MultiplierRedeliveryBackoff*>(backoff.get());
}

TEST(ConsumerConfig, LoadsTheExampleWithEveryKey) {
  auto options = loadConsumerOptions(kExamples / "consumer.json");
  EXPECT_EQ(options.topics, (std::vector<std::string>{"persistent://shop/orders/created",
                                                      "persistent://shop/orders/updated"}));
  EXPECT_EQ(options.subscription, "billing");
  EXPECT_EQ(options.subscriptionType, SubscriptionType::shared);
  EXPECT_EQ(options.initialPosition, InitialPosition::earliest);
  EXPECT_EQ(options.consumerName, "billing-1");
  EXPECT_EQ(options.receiverQueueSize, 500);
  EXPECT_EQ(options.maxTotalReceiverQueueSizeAcrossPartitions, 20000);
  ASSERT_TRUE(options.retry);
  ASSERT_NE(options.retry->levelTable(), nullptr);
  EXPECT_EQ(*options.retry->levelTable(), DelayLevels::parse("1s 5s 10s 30s 1m 5m 30m 2h"));
  EXPECT_EQ(options.retry->maxRetries(), 10);
  EXPECT_EQ(options.retry->timeLimit(), 24h);
  ASSERT_EQ(options.categories.size(), 3u);
  const auto& timeout = options.categories.at("downstream-timeout");
  ASSERT_TRUE(timeout.retry);
  ASSERT_NE(timeout.retry->exponentialBackoff(), nullptr);
  EXPECT_EQ(timeout.retry->exponentialBackoff()->max, 10s);
  EXPECT_EQ(timeout.retry->maxRetries(), 8);
  EXPECT_EQ(timeout.retry->timeLimit(), 5min);
  ASSERT_TRUE(options.categories.at("rate-limited").retry);
  EXPECT_EQ(options.categories.at("rate-limited").retry->maxRetries(), 20);
  const auto& invalid = options.categories.at("invalid-order");
  EXPECT_TRUE(invalid.deadLetter);
  EXPECT_EQ(invalid.deadLetterTopic, "persistent://shop/orders/billing-invalid");
  EXPECT_EQ(options.errorRules.classify(std::make_exception_ptr(
                std::system_error(std::make_error_code(std::errc::timed_out)))),
            "downstream-timeout");
  EXPECT_EQ(options.errorRules.classify(std::make_exception_ptr(std::invalid_argument("x"))),
            "invalid-order");
  EXPECT_FALSE(options.errorRules.classify(std::make_exception_ptr(std::runtime_error("x"))));
  EXPECT_EQ(options.retryTopic, "persistent://shop/orders/billing-retry");
  EXPECT_EQ(options.deadLetterTopic, "persistent://shop/orders/billing-dead");
  EXPECT_EQ(options.deadLetterSubscription, "billing-dlq");
  EXPECT_FALSE(options.transactionalRetry);
  EXPECT_EQ(options.maxRedeliverCount, 5);
  EXPECT_EQ(options.retryBatchingWindow, 10ms);
  EXPECT_EQ(options.ackTimeout, 30s);
  EXPECT_EQ(options.negativeAckRedeliveryDelay, 1min);
  const auto* nack = multiplierOf(options.negativeAckRedeliveryBackoff);
  ASSERT_NE(nack, nullptr);
  EXPECT_EQ(nack->options().min, 1s);
  EXPECT_EQ(nack->options().max, 1min);
  EXPECT_EQ(nack->options().multiplier, 2.0);
  const auto* ack = multiplierOf(options.ackTimeoutRedeliveryBackoff);
  ASSERT_NE(ack, nullptr);
  EXPECT_EQ(ack->options().min, 10s);
  EXPECT_EQ(ack->options().max, 10min);
  EXPECT_EQ(ack->options().multiplier, 1.5);
}

TEST(ConsumerConfig, LoadsTheExponentialExample) {
  auto options = loadConsumerOptions(kExamples / "consumer-exponential.json");
  EXPECT_EQ(options.subscriptionType, SubscriptionType::keyShared);
  ASSERT_TRUE(options.retry);
  const auto* backoff = options.retry->exponentialBackoff();
  ASSERT_NE(backoff, nullptr);
  EXPECT_EQ(backoff->min, 500ms);
  EXPECT_EQ(backoff->max, 5min);
  EXPECT_EQ(backoff->multiplier, 3.0);
  EXPECT_EQ(backoff->jitter, Jitter::decorrelated);
  EXPECT_EQ(options.retry->maxRetries(), 12);
}

TEST(ConsumerConfig, MinimalDocumentKeepsTheDefaults) {
  auto options = parseConsumerOptions(R"({"topics": ["orders"], "subscription": "s"})");
  ConsumerOptions defaults;
  EXPECT_EQ(options.topics, std::vector<std::string>{"orders"});
  EXPECT_EQ(options.subscriptionType, defaults.subscriptionType);
  EXPECT_EQ(options.initialPosition, defaults.initialPosition);
  EXPECT_EQ(options.receiverQueueSize, defaults.receiverQueueSize);
  EXPECT_FALSE(options.retry);
  EXPECT_FALSE(options.retryTopic);
  EXPECT_EQ(options.deadLetterSubscription, "reconsume-dlq");
  EXPECT_EQ(options.ackTimeout, 0ms);
  EXPECT_EQ(options.negativeAckRedeliveryDelay, 1min);
  EXPECT_FALSE(options.negativeAckRedeliveryBackoff);
}

TEST(ConsumerConfig, RetryDefaultsFollowThePolicy) {
  auto levels = parseConsumerOptions(
      R"({"topics": ["t"], "subscription": "s", "retry": {"levels": "1s 2s 3s"}})");
  EXPECT_EQ(levels.retry->maxRetries(), 3);
  auto exponential = parseConsumerOptions(
      R"({"topics": ["t"], "subscription": "s", "retry": {"exponential": {}}})");
  EXPECT_EQ(exponential.retry->maxRetries(), 16);
  EXPECT_EQ(exponential.retry->exponentialBackoff()->min, 1s);
  EXPECT_EQ(exponential.retry->exponentialBackoff()->jitter, Jitter::none);
}

TEST(ConsumerConfig, ZeroAckTimeoutIsAllowed) {
  EXPECT_EQ(parseConsumerOptions(R"({"topics": ["t"], "subscription": "s", "ackTimeout": "0s"})")
                .ackTimeout,
            0ms);
}

TEST(ConsumerConfig, GroupedAcknowledgementsLoadAndAreChecked) {
  auto defaults = parseConsumerOptions(R"({"topics": ["t"], "subscription": "s"})");
  EXPECT_EQ(defaults.acknowledgmentGroupTime, 100ms);  // the Java client's default
  EXPECT_FALSE(defaults.acknowledgmentReceipts);
  auto options = parseConsumerOptions(
      R"({"topics": ["t"], "subscription": "s", "acknowledgmentGroupTime": "250ms",
          "acknowledgmentReceipts": true})");
  EXPECT_EQ(options.acknowledgmentGroupTime, 250ms);
  EXPECT_TRUE(options.acknowledgmentReceipts);
  EXPECT_TRUE(mentions(
      errorOf(R"({"topics": ["t"], "subscription": "s", "acknowledgmentGroupTime": "-5ms"})"),
      "acknowledgmentGroupTime"));
  EXPECT_TRUE(mentions(
      errorOf(R"({"topics": ["t"], "subscription": "s", "acknowledgmentReceipts": "yes"})"),
      "acknowledgmentReceipts"));
}

TEST(ConsumerConfig, BatchIndexAcknowledgementIsOffUnlessTheFileTurnsItOn) {
  EXPECT_FALSE(
      parseConsumerOptions(R"({"topics": ["t"], "subscription": "s"})").batchIndexAcknowledgement);
  EXPECT_TRUE(parseConsumerOptions(
                  R"({"topics": ["t"], "subscription": "s", "batchIndexAcknowledgement": true})")
                  .batchIndexAcknowledgement);
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "batchIndexAcknowledgement": 1})"),
               "batchIndexAcknowledgement"));
}

TEST(ConsumerConfig, TransactionalRetryMaxRedeliverCountAndRetryBatchingLoadAndAreChecked) {
  auto options = parseConsumerOptions(
      R"({"topics": ["t"], "subscription": "s", "retry": {"levels": "1s"},
          "transactionalRetry": true, "maxRedeliverCount": 3, "retryBatchingWindow": "25ms"})");
  EXPECT_EQ(options.retryBatchingWindow, 25ms);
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "retryBatchingWindow": 5})"),
               "retryBatchingWindow"));
  EXPECT_TRUE(options.transactionalRetry);
  EXPECT_EQ(options.maxRedeliverCount, 3);
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "transactionalRetry": "yes"})"),
               "transactionalRetry \"yes\" must be true or false"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "maxRedeliverCount": -2})"),
               "maxRedeliverCount -2 must not be negative"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "transactionalRetry": true})"),
               "transactionalRetry is set without a retry policy"));
}

TEST(ConsumerConfig, UnknownKeysAreErrorsNamingTheirPath) {
  auto top = errorOf(R"({"topics": ["t"], "subscription": "s", "subscripton": "x"})");
  EXPECT_TRUE(mentions(top, "unknown key 'subscripton'"));
  EXPECT_TRUE(mentions(top, "\"x\""));
  EXPECT_TRUE(mentions(top, "subscription"));  // the known keys are listed
  auto nested =
      errorOf(R"({"topics": ["t"], "subscription": "s", "retry": {"exponential": {"mul": 2}}})");
  EXPECT_TRUE(mentions(nested, "unknown key 'retry.exponential.mul'"));
  auto param = errorOf(
      R"({"topics": ["t"], "subscription": "s",
          "ackTimeoutRedeliveryBackoff": {"type": "multiplier", "minimum": "1s"}})");
  EXPECT_TRUE(mentions(param, "ackTimeoutRedeliveryBackoff.minimum \"1s\""));
}

TEST(ConsumerConfig, WrongTypesAreErrorsNamingKeyAndValue) {
  EXPECT_TRUE(mentions(errorOf(R"({"topics": "t", "subscription": "s"})"), "topics \"t\""));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t", 5], "subscription": "s"})"), "topics[1] 5"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "receiverQueueSize": "10"})"),
               "receiverQueueSize \"10\" must be an integer"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "receiverQueueSize": 1.5})"),
               "receiverQueueSize 1.5 must be an integer"));
  EXPECT_TRUE(mentions(
      errorOf(R"({"topics": ["t"], "subscription": "s", "receiverQueueSize": 99999999999})"),
      "receiverQueueSize 99999999999 is out of range"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "ackTimeout": 30})"),
                       "ackTimeout 30 must be a duration string"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "retry": "1s 5s"})"),
                       "retry \"1s 5s\" must be an object"));
  EXPECT_TRUE(mentions(errorOf(R"([1, 2])"), "must be a JSON object"));
}

TEST(ConsumerConfig, BadValuesAreErrorsNamingKeyAndValue) {
  auto doc = [](std::string_view extra) {
    return R"({"topics": ["t"], "subscription": "s", )" + std::string(extra) + "}";
  };
  EXPECT_TRUE(mentions(errorOf(doc(R"("subscriptionType": "round-robin")")),
                       "subscriptionType \"round-robin\" is not one of exclusive, shared, "
                       "failover, key_shared"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("initialPosition": "first")")), "initialPosition \"first\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("ackTimeout": "30 s")")), "ackTimeout \"30 s\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("ackTimeout": "-1s")")), "ackTimeout \"-1s\""));
  auto levels = errorOf(doc(R"("retry": {"levels": "1s 5s x5s"})"));
  EXPECT_TRUE(mentions(levels, "retry.levels \"1s 5s x5s\""));
  EXPECT_TRUE(mentions(levels, "delay level 3 'x5s'"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"levels": "1s", "maxRetries": 0})")),
                       "retry.maxRetries 0"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"exponential": {"multiplier": 1}})")),
                       "retry.exponential.multiplier 1 must be greater than 1"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"exponential": {"min": "0s"}})")),
                       "retry.exponential.min \"0s\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"exponential": {"min": "2m", "max": "1m"}})")),
                       "retry.exponential.max \"1m\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"exponential": {"jitter": "some"}})")),
                       "retry.exponential.jitter \"some\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"levels": "1s", "exponential": {}})")),
                       "both 'levels' and 'exponential'"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("retry": {"maxRetries": 3})")), "retry needs 'levels'"));
  EXPECT_TRUE(mentions(
      errorOf(doc(R"("negativeAckRedeliveryBackoff": {"type": "multiplier", "multiplier": 0.5})")),
      "negativeAckRedeliveryBackoff.multiplier 0.5"));
  EXPECT_TRUE(mentions(
      errorOf(doc(R"("negativeAckRedeliveryBackoff": {"type": "multiplier", "min": 1000})")),
      "negativeAckRedeliveryBackoff.min 1000 must be a duration string"));
  EXPECT_TRUE(mentions(errorOf(doc(R"("negativeAckRedeliveryBackoff": {"min": "1s"})")),
                       "negativeAckRedeliveryBackoff needs a \"type\""));
  EXPECT_TRUE(mentions(errorOf(doc(R"("ackTimeoutRedeliveryBackoff": {"type": "fibonacci"})")),
                       "ackTimeoutRedeliveryBackoff.type 'fibonacci' is not a registered"));
}

TEST(ConsumerConfig, ResultPassesTheConsumerOptionsValidation) {
  EXPECT_TRUE(mentions(errorOf(R"({"topics": [], "subscription": "s"})"), "topics is empty"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"]})"), "subscription is empty"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["a/b"], "subscription": "s"})"), "'a/b'"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "receiverQueueSize": 0})"),
                       "receiverQueueSize 0"));
  EXPECT_TRUE(
      mentions(errorOf(R"({"topics": ["t"], "subscription": "s", "negativeAckRedeliveryDelay": "5s",
                  "negativeAckRedeliveryBackoff": {"type": "multiplier"}})"),
               "cannot be used together"));
}

TEST(ConsumerConfig, SyntaxErrorsNameLineColumnAndOffset) {
  auto text = errorOf("{\n  \"topics\": [\"t\"],\n  \"subscription\": s\n}");
  EXPECT_TRUE(mentions(text, "line 3, column 19 (offset 39)"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"])"), "line 1"));
  EXPECT_TRUE(mentions(errorOf(R"({"topics": ["t"]} x)"), "column 19"));
  EXPECT_TRUE(mentions(errorOf(""), "JSON syntax error"));
}

// An application's own backoff, registered under a name.
class SteppedBackoff final : public RedeliveryBackoff {
 public:
  SteppedBackoff(milliseconds step, int steps) : step_(step), steps_(steps) {}
  milliseconds next(int count) const override { return step_ * std::min(count + 1, steps_); }

 private:
  milliseconds step_;
  int steps_;
};

BackoffRegistry withStepped() {
  BackoffRegistry registry;
  registry.add("stepped", [](const BackoffParams& params) {
    auto steps = params.integer("steps", 5);
    if (steps < 1) params.fail("steps", "must be at least 1");
    return std::make_shared<SteppedBackoff>(params.duration("step"), static_cast<int>(steps));
  });
  return registry;
}

TEST(ConsumerConfig, RegisteredBackoffTypesAreBuiltFromTheirParameters) {
  auto registry = withStepped();
  EXPECT_TRUE(registry.contains("stepped"));
  EXPECT_TRUE(registry.contains("multiplier"));
  auto options = parseConsumerOptions(
      R"({"topics": ["t"], "subscription": "s", "ackTimeout": "10s",
          "ackTimeoutRedeliveryBackoff": {"type": "stepped", "step": "2s", "steps": 3}})",
      registry);
  ASSERT_TRUE(options.ackTimeoutRedeliveryBackoff);
  EXPECT_EQ(options.ackTimeoutRedeliveryBackoff->next(0), 2s);
  EXPECT_EQ(options.ackTimeoutRedeliveryBackoff->next(10), 6s);

  auto doc = [](std::string_view backoff) {
    return R"({"topics": ["t"], "subscription": "s", "ackTimeoutRedeliveryBackoff": )" +
           std::string(backoff) + "}";
  };
  EXPECT_TRUE(mentions(errorOf(doc(R"({"type": "stepped"})"), registry),
                       "ackTimeoutRedeliveryBackoff.step is missing"));
  EXPECT_TRUE(mentions(errorOf(doc(R"({"type": "stepped", "step": "1s", "steps": 0})"), registry),
                       "ackTimeoutRedeliveryBackoff.steps 0 must be at least 1"));
  EXPECT_TRUE(
      mentions(errorOf(doc(R"({"type": "stepped", "step": "1s", "extra": true})"), registry),
               "ackTimeoutRedeliveryBackoff.extra true is not a parameter"));
  EXPECT_TRUE(
      mentions(errorOf(doc(R"({"type": "stepped", "step": "1s", "n": [1]})"), registry),
               "ackTimeoutRedeliveryBackoff.n [1] must be a string, a number or a boolean"));
  // Unknown to the built-in registry.
  EXPECT_TRUE(
      mentions(errorOf(doc(R"({"type": "stepped", "step": "1s"})")),
               "'stepped' is not a registered redelivery backoff type (known: multiplier)"));
}

TEST(ConsumerConfig, FactoryErrorsAreReportedWithThePath) {
  BackoffRegistry registry;
  registry.add("broken", [](const BackoffParams&) -> std::shared_ptr<const RedeliveryBackoff> {
    throw std::runtime_error("cannot build");
  });
  registry.add("empty", [](const BackoffParams&) { return nullptr; });
  auto doc = [](std::string_view type) {
    return R"({"topics": ["t"], "subscription": "s", "ackTimeoutRedeliveryBackoff": {"type": ")" +
           std::string(type) + "\"}}";
  };
  EXPECT_TRUE(mentions(errorOf(doc("broken"), registry),
                       "ackTimeoutRedeliveryBackoff (type 'broken'): cannot build"));
  EXPECT_TRUE(mentions(errorOf(doc("empty"), registry), "returned no backoff"));
}

TEST(ConsumerConfig, RegistryRejectsBadRegistrations) {
  BackoffRegistry registry;
  auto factory = [](const BackoffParams&) {
    return std::make_shared<MultiplierRedeliveryBackoff>();
  };
  EXPECT_TRUE(mentions(invalidArgumentText([&] { registry.add("multiplier", factory); }),
                       "'multiplier' is already registered"));
  EXPECT_TRUE(mentions(invalidArgumentText([&] { registry.add("", factory); }), "non-empty name"));
  EXPECT_TRUE(mentions(invalidArgumentText([&] { registry.add("x", nullptr); }), "'x'"));
  EXPECT_FALSE(registry.contains("x"));
}

TEST(BackoffParams, TypedReadsAndUnreadKeys) {
  BackoffParams params("p", {{"d", std::string("5s")},
                             {"i", std::int64_t{3}},
                             {"f", 2.5},
                             {"b", true},
                             {"s", std::string("text")},
                             {"unused", std::string("x")}});
  EXPECT_EQ(params.duration("d"), 5s);
  EXPECT_EQ(params.integer("i"), 3);
  EXPECT_EQ(params.number("i"), 3.0);
  EXPECT_EQ(params.number("f"), 2.5);
  EXPECT_TRUE(params.boolean("b"));
  EXPECT_EQ(params.string("s"), "text");
  EXPECT_EQ(params.duration("missing", 7s), 7s);
  EXPECT_EQ(params.unreadKeys(), std::vector<std::string>{"unused"});
  EXPECT_TRUE(
      mentions(invalidArgumentText([&] { params.integer("f"); }), "p.f 2.5 must be an integer"));
  EXPECT_TRUE(mentions(invalidArgumentText([&] { params.boolean("s"); }), "p.s \"text\""));
  EXPECT_TRUE(
      mentions(invalidArgumentText([&] { params.string("missing"); }), "p.missing is missing"));
}

TEST(ConsumerConfig, FileErrorsNameTheFile) {
  auto missing = kExamples / "does-not-exist.json";
  EXPECT_TRUE(
      mentions(invalidArgumentText([&] { loadConsumerOptions(missing); }), missing.string()));
  EXPECT_TRUE(
      mentions(invalidArgumentText([&] { loadConsumerOptions(kExamples); }), "it is a directory"));

  auto bad = std::filesystem::temp_directory_path() /
             ("reconsume-config-test-" +
              std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".json");
  {
    std::ofstream out(bad);
    out << R"({"topics": ["t"], "subscription": "s", "receiverQueueSize": -1})";
  }
  auto text = invalidArgumentText([&] { loadConsumerOptions(bad); });
  std::filesystem::remove(bad);
  EXPECT_TRUE(mentions(text, "consumer options file '" + bad.string() + "'"));
  EXPECT_TRUE(mentions(text, "receiverQueueSize -1"));
}

}  // namespace
}  // namespace reconsume
