// Filters of dead-letter inspection: checked once (bad values named), then matched.
#include <gtest/gtest.h>

#include "dlq/filter.hpp"
#include "dlq_test_messages.hpp"
#include "expect_error.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::invalidArgumentText;
using reconsume::testing::mentions;
using reconsume::testing::StoredMessage;

DeadLetter letter(std::map<std::string, std::string> properties, MessageId id = {7, 3, -1},
                  std::optional<std::string> key = {}) {
  StoredMessage stored;
  stored.properties = std::move(properties);
  stored.id = id;
  stored.key = std::move(key);
  return DeadLetter::from(stored.build());
}

const auto kPublished = StoredMessage{}.publishTime;

bool matches(const DeadLetterFilter& filter, const DeadLetter& deadLetter,
             std::chrono::system_clock::time_point now = kPublished) {
  return CompiledFilter(filter).matches(deadLetter, now);
}

TEST(DeadLetterFilterMatch, AnEmptyFilterMatchesEverything) {
  DeadLetterFilter filter;
  EXPECT_TRUE(filter.empty());
  EXPECT_TRUE(matches(filter, letter({})));
}

TEST(DeadLetterFilterMatch, CauseUnknownMeansNoCauseProperty) {
  DeadLetterFilter filter;
  filter.cause = "unknown";
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "t"}})));
  EXPECT_FALSE(matches(filter, letter({{"DEAD_LETTER_CAUSE", "explicit"}})));
  filter.cause = "explicit";
  EXPECT_TRUE(matches(filter, letter({{"DEAD_LETTER_CAUSE", "explicit"}})));
  EXPECT_FALSE(matches(filter, letter({{"DEAD_LETTER_CAUSE", "exhausted"}})));
}

TEST(DeadLetterFilterMatch, ReasonIsARegularExpressionFoundAnywhere) {
  DeadLetterFilter filter;
  filter.reason = "time(d )?out";
  EXPECT_TRUE(matches(filter, letter({{"RECONSUME_REASON", "inventory service timed out"}})));
  EXPECT_TRUE(matches(filter, letter({{"RECONSUME_REASON", "read timeout after 5s"}})));
  EXPECT_FALSE(matches(filter, letter({{"RECONSUME_REASON", "503"}})));
  EXPECT_FALSE(matches(filter, letter({})));  // no reason at all
  filter.reason = "^$";
  EXPECT_TRUE(matches(filter, letter({}))) << "an empty reason matches ^$";
}

TEST(DeadLetterFilterMatch, OriginIsComparedAsACanonicalTopicName) {
  DeadLetterFilter filter;
  filter.origin = "orders";
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders"}})));
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "public/default/orders"}})));
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/payments"}})));
  EXPECT_FALSE(matches(filter, letter({})));
  // An origin that is no topic name only equals itself (and never crashes the scan).
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "::"}})));
}

TEST(DeadLetterFilterMatch, CategoryIsExactAndDashMeansNone) {
  DeadLetterFilter filter;
  filter.category = "invalid-order";
  EXPECT_FALSE(filter.empty());
  EXPECT_TRUE(matches(filter, letter({{"RECONSUME_CATEGORY", "invalid-order"}})));
  EXPECT_FALSE(matches(filter, letter({{"RECONSUME_CATEGORY", "invalid-order-2"}})));
  EXPECT_FALSE(matches(filter, letter({})));
  filter.category = "-";
  EXPECT_TRUE(matches(filter, letter({})));
  EXPECT_FALSE(matches(filter, letter({{"RECONSUME_CATEGORY", "slow"}})));
}

// The Java and Go clients may write the partition a message was received on (SPEC.md §4).
TEST(DeadLetterFilterMatch, ATopicMatchesItselfAndEachOfItsPartitions) {
  DeadLetterFilter filter;
  filter.origin = "orders";
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders"}})));
  EXPECT_TRUE(
      matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-partition-0"}})));
  EXPECT_TRUE(
      matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-partition-7"}})));
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "orders-partition-12"}})));
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-x"}})));
  EXPECT_FALSE(matches(
      filter, letter({{"REAL_TOPIC", "persistent://public/default/payments-partition-0"}})));
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "persistent://other/default/orders"}})));
  // Not a partition suffix: part of another topic's name.
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "orders-partition-x"}})));
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "orders-partition-"}})));
}

TEST(DeadLetterFilterMatch, APartitionMatchesThatPartitionOnly) {
  DeadLetterFilter filter;
  filter.origin = "orders-partition-2";
  EXPECT_TRUE(
      matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-partition-2"}})));
  EXPECT_TRUE(matches(filter, letter({{"REAL_TOPIC", "public/default/orders-partition-2"}})));
  EXPECT_FALSE(
      matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-partition-3"}})));
  EXPECT_FALSE(
      matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders-partition-20"}})));
  EXPECT_FALSE(matches(filter, letter({{"REAL_TOPIC", "persistent://public/default/orders"}})));
}

TEST(DeadLetterFilterMatch, KeyMustBeEqual) {
  DeadLetterFilter filter;
  filter.key = "customer-7";
  EXPECT_TRUE(matches(filter, letter({}, {1, 1, -1}, "customer-7")));
  EXPECT_FALSE(matches(filter, letter({}, {1, 1, -1}, "customer-70")));
  EXPECT_FALSE(matches(filter, letter({})));
}

TEST(DeadLetterFilterMatch, AgeBoundsAreStrict) {
  DeadLetterFilter older;
  older.olderThan = 1h;
  EXPECT_FALSE(matches(older, letter({}), kPublished + 1h));
  EXPECT_TRUE(matches(older, letter({}), kPublished + 1h + 1ms));
  DeadLetterFilter newer;
  newer.newerThan = 10min;
  EXPECT_TRUE(matches(newer, letter({}), kPublished + 10min - 1ms));
  EXPECT_FALSE(matches(newer, letter({}), kPublished + 10min));
  DeadLetterFilter window;
  window.olderThan = 1min;
  window.newerThan = 1h;
  EXPECT_TRUE(matches(window, letter({}), kPublished + 30min));
  EXPECT_FALSE(matches(window, letter({}), kPublished + 30s));
}

TEST(DeadLetterFilterMatch, IdsAreAnyOf) {
  DeadLetterFilter filter;
  filter.ids = {MessageId::parse("7:3:-1"), MessageId::parse("7:9:-1")};
  EXPECT_TRUE(matches(filter, letter({}, {7, 3, -1})));
  EXPECT_TRUE(matches(filter, letter({}, {7, 9, -1})));
  EXPECT_FALSE(matches(filter, letter({}, {7, 4, -1})));
  EXPECT_FALSE(matches(filter, letter({}, {7, 3, 0}))) << "another partition is another message";
}

TEST(DeadLetterFilterMatch, EveryFieldSetMustMatch) {
  DeadLetterFilter filter;
  filter.cause = "exhausted";
  filter.reason = "timeout";
  auto both = letter({{"DEAD_LETTER_CAUSE", "exhausted"}, {"RECONSUME_REASON", "timeout"}});
  auto one = letter({{"DEAD_LETTER_CAUSE", "explicit"}, {"RECONSUME_REASON", "timeout"}});
  EXPECT_TRUE(matches(filter, both));
  EXPECT_FALSE(matches(filter, one));
}

TEST(DeadLetterFilterCheck, BadValuesAreNamed) {
  DeadLetterFilter cause;
  cause.cause = "exhaustion";
  auto text = invalidArgumentText([&] { (void)CompiledFilter(cause); });
  EXPECT_TRUE(mentions(text, "'exhaustion'"));

  DeadLetterFilter reason;
  reason.reason = "timeout(";
  text = invalidArgumentText([&] { (void)CompiledFilter(reason); });
  EXPECT_TRUE(mentions(text, "'timeout('"));

  DeadLetterFilter origin;
  origin.origin = "a/b/c/d/e";
  text = invalidArgumentText([&] { (void)CompiledFilter(origin); });
  EXPECT_TRUE(mentions(text, "'a/b/c/d/e'"));

  DeadLetterFilter age;
  age.olderThan = -5s;
  text = invalidArgumentText([&] { (void)CompiledFilter(age); });
  EXPECT_TRUE(mentions(text, "-5s"));
}

}  // namespace
}  // namespace reconsume::detail::dlq
