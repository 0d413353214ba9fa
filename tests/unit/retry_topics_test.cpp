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
