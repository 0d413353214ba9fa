#include "retry/retry_topics.hpp"

#include <gtest/gtest.h>

#include "expect_error.hpp"

namespace reconsume::detail::retry {
namespace {

using testing::invalidArgumentText;
using testing::mentions;

TEST(RetryTopics, DefaultNamesFollowTheTopicAndSubscription) {
  EXPECT_EQ(defaultRetryTopic("persistent://shop/orders/created", "billing"),
            "persistent://shop/orders/created-billing-RETRY");
  EXPECT_EQ(defaultDeadLetterTopic("persistent://shop/orders/created", "billing"),
            "persistent://shop/orders/created-billing-DLQ");
}

TEST(RetryTopics, DefaultNamesUseTheCanonicalNameWithoutThePartition) {
  EXPECT_EQ(defaultRetryTopic("orders", "sub"), "persistent://public/default/orders-sub-RETRY");
  EXPECT_EQ(defaultDeadLetterTopic("shop/ns/orders-partition-4", "sub"),
            "persistent://shop/ns/orders-sub-DLQ");
  EXPECT_EQ(defaultRetryTopic("non-persistent://a/b/c-partition-0", "s"),
            "non-persistent://a/b/c-s-RETRY");
}

TEST(RetryTopics, LegacyNamesArePerNamespace) {
  EXPECT_EQ(legacyRetryTopic("persistent://shop/orders/created-partition-1", "billing"),
            "persistent://shop/orders/billing-RETRY");
  EXPECT_EQ(legacyDeadLetterTopic("created", "billing"), "persistent://public/default/billing-DLQ");
}

TEST(RetryTopics, RejectsBadInputNamingIt) {
  EXPECT_TRUE(mentions(invalidArgumentText([] { defaultRetryTopic("a/b", "s"); }), "'a/b'"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { legacyDeadLetterTopic("", "s"); }), "''"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { defaultRetryTopic("orders", ""); }), "orders"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { defaultDeadLetterTopic("orders", "a/b"); }), "'a/b'"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { legacyRetryTopic("orders", "x/y"); }), "'x/y'"));
}

}  // namespace
}  // namespace reconsume::detail::retry

namespace reconsume::detail::retry {
namespace {

ConsumerOptions billingOn(std::string topic) {
  ConsumerOptions options;
  options.topics = {std::move(topic), "persistent://shop/orders/other"};
  options.subscription = "billing";
  return options;
}

TEST(RetryTopicResolution, DefaultsFollowTheFirstTopicWhenNoLegacyTopicExists) {
  auto topics = resolveRetryTopics(billingOn("persistent://shop/orders/created"), 0, 0);
  EXPECT_EQ(topics.retryTopic, "persistent://shop/orders/created-billing-RETRY");
  EXPECT_EQ(topics.deadLetterTopic, "persistent://shop/orders/created-billing-DLQ");
  EXPECT_EQ(topics.deadLetterSubscription, "reconsume-dlq");
}

TEST(RetryTopicResolution, ALegacyNameThatExistsAsAPartitionedTopicWinsOverTheDefault) {
  auto options = billingOn("persistent://shop/orders/created");
  EXPECT_EQ(legacyTopicsOf(options),
            (std::array<std::string, 2>{"persistent://shop/orders/billing-RETRY",
                                        "persistent://shop/orders/billing-DLQ"}));
  auto retryOnly = resolveRetryTopics(options, 3, 0);
  EXPECT_EQ(retryOnly.retryTopic, "persistent://shop/orders/billing-RETRY");
  EXPECT_EQ(retryOnly.deadLetterTopic, "persistent://shop/orders/created-billing-DLQ");
  auto both = resolveRetryTopics(options, 1, 2);
  EXPECT_EQ(both.deadLetterTopic, "persistent://shop/orders/billing-DLQ");
}

TEST(RetryTopicResolution, ExplicitNamesWinOverEverything) {
  auto options = billingOn("persistent://shop/orders/created");
  options.retryTopic = "persistent://shop/orders/mine-retry";
  options.deadLetterTopic = "persistent://shop/orders/mine-dlq";
  options.deadLetterSubscription = "keep";
  auto topics = resolveRetryTopics(options, 4, 4);
  EXPECT_EQ(topics.retryTopic, "persistent://shop/orders/mine-retry");
  EXPECT_EQ(topics.deadLetterTopic, "persistent://shop/orders/mine-dlq");
  EXPECT_EQ(topics.deadLetterSubscription, "keep");
}

}  // namespace
}  // namespace reconsume::detail::retry
