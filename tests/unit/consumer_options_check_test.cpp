#include "config/consumer_options_check.hpp"

#include <gtest/gtest.h>

#include "expect_error.hpp"

namespace reconsume::detail::config {
namespace {

using namespace std::chrono_literals;
using testing::invalidArgumentText;
using testing::mentions;

ConsumerOptions valid() {
  ConsumerOptions options;
  options.topics = {"persistent://shop/orders/created", "invoices"};
  options.subscription = "billing";
  return options;
}

template <typename Change>
std::string errorAfter(Change change) {
  auto options = valid();
  change(options);
  return invalidArgumentText([&] { validateConsumerOptions(options); });
}

TEST(ConsumerOptionsCheck, AcceptsValidOptions) {
  EXPECT_NO_THROW(validateConsumerOptions(valid()));
  auto full = valid();
  full.retry = RetryPolicy::levels(DelayLevels::defaultTable());
  full.retryTopic = "persistent://shop/orders/retries";
  full.deadLetterTopic = "dead";
  full.ackTimeout = 0ms;
  full.negativeAckRedeliveryDelay = 0ms;
  full.ackTimeoutRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>();
  EXPECT_NO_THROW(validateConsumerOptions(full));
}

TEST(ConsumerOptionsCheck, NeedsTopicsAndEachMustBeValid) {
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.topics.clear(); }), "ConsumerOptions.topics"));
  auto text = errorAfter([](auto& o) { o.topics.push_back("a/b"); });
  EXPECT_TRUE(mentions(text, "ConsumerOptions.topics[2]"));
  EXPECT_TRUE(mentions(text, "'a/b'"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.topics[0] = ""; }), "topics[0] ''"));
}

// Java keeps topic names in a set; here a topic given twice is refused rather than subscribed twice
// on one subscription (one of the two consumers would get the other's acknowledgements).
TEST(ConsumerOptionsCheck, RefusesATopicGivenTwiceOrWithOneOfItsPartitions) {
  auto twice =
      errorAfter([](auto& o) { o.topics.push_back("persistent://public/default/invoices"); });
  EXPECT_TRUE(mentions(twice,
                       "topics[2] 'persistent://public/default/invoices' is the same topic "
                       "as topics[1] 'invoices'"))
      << twice;
  auto partition = errorAfter([](auto& o) { o.topics.push_back("invoices-partition-3"); });
  EXPECT_TRUE(mentions(partition, "topics[2] 'invoices-partition-3' is a partition of topics[1]"))
      << partition;
  auto base = errorAfter([](auto& o) { o.topics = {"invoices-partition-0", "invoices"}; });
  EXPECT_TRUE(mentions(base, "is the partitioned topic of topics[0]")) << base;
  auto options = valid();
  options.topics = {"invoices-partition-0", "invoices-partition-1"};
  EXPECT_NO_THROW(validateConsumerOptions(options)) << "two partitions of one topic are two topics";
}

TEST(ConsumerOptionsCheck, NeedsASubscription) {
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.subscription.clear(); }),
                       "ConsumerOptions.subscription"));
}

TEST(ConsumerOptionsCheck, RejectsOutOfRangeNumbersNamingThem) {
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.receiverQueueSize = 0; }),
                       "ConsumerOptions.receiverQueueSize 0"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.maxTotalReceiverQueueSizeAcrossPartitions = 0; }),
                       "ConsumerOptions.maxTotalReceiverQueueSizeAcrossPartitions 0"));
  EXPECT_TRUE(
      mentions(errorAfter([](auto& o) { o.ackTimeout = -1s; }), "ConsumerOptions.ackTimeout -1s"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.negativeAckRedeliveryDelay = -5ms; }),
                       "ConsumerOptions.negativeAckRedeliveryDelay -5ms"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.retryBatchingWindow = -10ms; }),
                       "ConsumerOptions.retryBatchingWindow -10ms must not be negative"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.acknowledgmentGroupTime = -1ms; }),
                       "ConsumerOptions.acknowledgmentGroupTime -1ms must not be negative"));
}

TEST(ConsumerOptionsCheck, NegativeAckDelayAndBackoffCannotBeUsedTogether) {
  auto withBackoff = valid();
  withBackoff.negativeAckRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>();
  EXPECT_NO_THROW(validateConsumerOptions(withBackoff));  // the default delay is fine

  auto text = errorAfter([](auto& o) {
    o.negativeAckRedeliveryBackoff = std::make_shared<MultiplierRedeliveryBackoff>();
    o.negativeAckRedeliveryDelay = 30s;
  });
  EXPECT_TRUE(mentions(text, "negativeAckRedeliveryDelay 30s"));
  EXPECT_TRUE(mentions(text, "cannot be used together"));
}

TEST(ConsumerOptionsCheck, RetryAndDeadLetterTopicsMustBeValidWhenSet) {
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.retryTopic = "x://a/b/c"; }),
                       "ConsumerOptions.retryTopic 'x://a/b/c'"));
  EXPECT_TRUE(mentions(errorAfter([](auto& o) { o.deadLetterTopic = "a/b/c/d"; }),
                       "ConsumerOptions.deadLetterTopic 'a/b/c/d'"));
}

}  // namespace
}  // namespace reconsume::detail::config
