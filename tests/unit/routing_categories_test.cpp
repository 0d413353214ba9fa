// Routing by error and the total time limit (SPEC.md section 1): a category switching mid-chain
// continues the count and switches policy; the time limit counts from FIRST_FAILURE_TIME (from
// this hop when a message has none) and turns a retry past it into a dead letter "expired".
#include <gtest/gtest.h>

#include "reconsume/error.hpp"
#include "retry/retry_properties.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {
namespace {

using namespace std::chrono_literals;
using Properties = detail::Properties;
using TimePoint = std::chrono::system_clock::time_point;

// 2024-01-01T00:00:00Z, in epoch ms and as a time point.
constexpr std::int64_t kStartMs = 1'704'067'200'000;
const TimePoint kStart{std::chrono::milliseconds(kStartMs)};

RetryRequest inCategory(std::string category) {
  RetryRequest request;
  request.category = std::move(category);
  return request;
}

TEST(RoutingCategories, TheLevelContinuesOnlyWithinItsCategory) {
  auto table = RetryPolicy::levels(DelayLevels::parse("1s 2s 3s 4s 5s"), 10);
  Properties sameCategory{
      {"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "3"}, {"RECONSUME_CATEGORY", "slow"}};
  EXPECT_EQ(decide(table, sameCategory, inCategory("slow")).level, 4);
  // Switching to "fast": the count continues (2) and the level restarts from it.
  auto switched = decide(table, sameCategory, inCategory("fast"));
  EXPECT_EQ(switched.count, 2);
  EXPECT_EQ(switched.level, 2);
  EXPECT_EQ(switched.category, "fast");
  // No category now, one before: the same.
  EXPECT_EQ(decide(table, sameCategory, RetryRequest{}).level, 2);
  // No category either time: the level continues as before.
  Properties plain{{"RECONSUMETIMES", "1"}, {"RECONSUME_LEVEL", "3"}};
  EXPECT_EQ(decide(table, plain, RetryRequest{}).level, 4);
}

TEST(RoutingCategories, TheNewCategorysMaxRetriesBoundsTheContinuedCount) {
  auto strict = RetryPolicy::levels(DelayLevels::parse("1s"), 2);
  Properties twice{{"RECONSUMETIMES", "2"}, {"RECONSUME_CATEGORY", "lenient"}};
  auto route = decide(strict, twice, inCategory("strict"));
  EXPECT_EQ(route.destination, Destination::deadLetterTopic);
  EXPECT_EQ(route.cause, DeadLetterCause::exhausted);
  EXPECT_EQ(route.count, 3);
}

TEST(RoutingCategories, AnExplicitDeadLetterKeepsTheCountAndTheCategory) {
  auto route = explicitDeadLetter({{"RECONSUMETIMES", "4"}}, "invalid");
  EXPECT_EQ(route.destination, Destination::deadLetterTopic);
  EXPECT_EQ(route.cause, DeadLetterCause::explicitCall);
  EXPECT_EQ(route.count, 4);
  EXPECT_EQ(route.category, "invalid");
}

TEST(RoutingTimeLimit, ARetryEndingWithinTheLimitStays) {
  auto policy = RetryPolicy::levels(DelayLevels::parse("1h"), 30).withTimeLimit(24h);
  Properties incoming{{"FIRST_FAILURE_TIME", std::to_string(kStartMs)}};
  auto route = applyTimeLimit(policy, incoming, decide(policy, incoming, {}), kStart + 23h);
  EXPECT_EQ(route.destination, Destination::retryTopic);
  EXPECT_EQ(route.delay, 1h);
}

TEST(RoutingTimeLimit, ARetryEndingAfterTheLimitIsDeadLetteredExpired) {
  auto policy = RetryPolicy::levels(DelayLevels::parse("1h"), 30).withTimeLimit(24h);
  Properties incoming{{"RECONSUMETIMES", "23"}, {"FIRST_FAILURE_TIME", std::to_string(kStartMs)}};
  auto route = applyTimeLimit(policy, incoming, decide(policy, incoming, {}), kStart + 23h + 1ms);
  EXPECT_EQ(route.destination, Destination::deadLetterTopic);
  EXPECT_EQ(route.cause, DeadLetterCause::expired);
  EXPECT_EQ(route.count, 24);
  EXPECT_FALSE(route.level);
}

TEST(RoutingTimeLimit, AMessageWithoutAFirstFailureStartsItsClockAtThisHop) {
  // As a Java client writes it: RECONSUMETIMES, no FIRST_FAILURE_TIME.
  auto policy = RetryPolicy::exponential({.min = 1s, .max = 1h}, 30).withTimeLimit(10min);
  Properties fromJava{{"RECONSUMETIMES", "9"}};
  auto route = applyTimeLimit(policy, fromJava, decide(policy, fromJava, {}), kStart);
  EXPECT_EQ(route.destination, Destination::retryTopic) << "512 s ends within 10 min of now";
  Properties longer{{"RECONSUMETIMES", "10"}};
  EXPECT_EQ(applyTimeLimit(policy, longer, decide(policy, longer, {}), kStart).cause,
            DeadLetterCause::expired)
      << "1024 s does not";
}

TEST(RoutingTimeLimit, AppliesToEveryPolicyKindAndToExplicitDelays) {
  Properties first{{"FIRST_FAILURE_TIME", std::to_string(kStartMs)}};
  auto custom = RetryPolicy::custom([](int) { return 2min; }).withTimeLimit(1min);
  EXPECT_EQ(applyTimeLimit(custom, first, decide(custom, first, {}), kStart).cause,
            DeadLetterCause::expired);
  auto table = RetryPolicy::levels(DelayLevels::parse("1s")).withTimeLimit(1min);
  RetryRequest delay;
  delay.kind = RetryRequest::Kind::delay;
  delay.delay = 61s;
  EXPECT_EQ(applyTimeLimit(table, first, decide(table, first, delay), kStart).cause,
            DeadLetterCause::expired);
  delay.delay = 60s;
  EXPECT_EQ(applyTimeLimit(table, first, decide(table, first, delay), kStart).destination,
            Destination::retryTopic)
      << "ending exactly at the limit is within it";
}

TEST(RoutingTimeLimit, NoLimitAndFarFutureValuesChangeNothing) {
  auto policy = RetryPolicy::levels(DelayLevels::parse("1h"));
  Properties incoming{{"FIRST_FAILURE_TIME", "1"}};
  EXPECT_EQ(applyTimeLimit(policy, incoming, decide(policy, incoming, {}), kStart).destination,
            Destination::retryTopic);
  auto limited = policy.withTimeLimit(1h);
  Properties future{{"FIRST_FAILURE_TIME", "99999999999999999999"}};  // saturates, no overflow
  EXPECT_EQ(applyTimeLimit(limited, future, decide(limited, future, {}), kStart).destination,
            Destination::retryTopic);
}

TEST(RoutingTimeLimit, ALimitThatIsNotPositiveIsRefused) {
  try {
    RetryPolicy::levels(DelayLevels::parse("1s")).withTimeLimit(0ms);
    FAIL() << "a zero time limit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("time limit 0s"), std::string::npos) << e.what();
  }
}

TEST(CategoryProperties, TheCategoryTravelsAndTheHistoryRecordsIt) {
  Route route;
  route.count = 2;
  route.delay = 1s;
  route.category = "slow";
  Properties incoming{{"RECONSUMETIMES", "1"}, {"RECONSUME_CATEGORY", "fast"}};
  auto out = buildProperties(incoming, "persistent://public/default/t", "sub", MessageId(1, 2),
                             route, kStart, "timed out", {});
  EXPECT_EQ(out.at("RECONSUME_CATEGORY"), "slow");
  EXPECT_NE(out.at("RECONSUME_HISTORY").find(R"("reason":"timed out","category":"slow"})"),
            std::string::npos)
      << out.at("RECONSUME_HISTORY");
  route.category.reset();
  auto plain = buildProperties(out, "persistent://public/default/t", "sub", MessageId(1, 3), route,
                               kStart, "", {});
  EXPECT_FALSE(plain.contains("RECONSUME_CATEGORY")) << "a hop without a category drops it";
  EXPECT_NE(plain.at("RECONSUME_HISTORY").find(R"("category":"slow")"), std::string::npos)
      << "the earlier hop's entry is kept: " << plain.at("RECONSUME_HISTORY");
}

TEST(CategoryProperties, TheExpiredCauseIsWritten) {
  Route route;
  route.destination = Destination::deadLetterTopic;
  route.cause = DeadLetterCause::expired;
  route.count = 3;
  auto out = buildProperties({}, "persistent://public/default/t", "sub", MessageId(1, 2), route,
                             kStart, "", {});
  EXPECT_EQ(out.at("DEAD_LETTER_CAUSE"), "expired");
}

}  // namespace
}  // namespace reconsume::detail::retry
