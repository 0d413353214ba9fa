#include "reconsume/redelivery_backoff.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <vector>

#include "common/duration.hpp"
#include "expect_error.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using testing::invalidArgumentText;
using testing::mentions;

TEST(MultiplierRedeliveryBackoff, ReproducesPip130sAckTimeoutTable) {
  // PIP-130: ack timeout 10 s with a backoff of min 1 s, max 60 s, multiplier 2.
  constexpr auto ackTimeout = 10s;
  MultiplierRedeliveryBackoff backoff({.min = 1s, .max = 60s, .multiplier = 2});
  std::vector<milliseconds> redeliveredAfter;
  for (int count = 0; count <= 7; ++count)
    redeliveredAfter.push_back(ackTimeout + backoff.next(count));
  EXPECT_EQ(redeliveredAfter, (std::vector<milliseconds>{11s, 12s, 14s, 18s, 26s, 42s, 70s, 70s}));
}

TEST(MultiplierRedeliveryBackoff, HasTheJavaClientsDefaults) {
  MultiplierRedeliveryBackoff backoff;
  EXPECT_EQ(backoff.options().min, 10s);
  EXPECT_EQ(backoff.options().max, 10min);
  EXPECT_EQ(backoff.options().multiplier, 2.0);
  EXPECT_EQ(backoff.next(0), 10s);
  EXPECT_EQ(backoff.next(1), 20s);
  EXPECT_EQ(backoff.next(5), 320s);
  EXPECT_EQ(backoff.next(6), 10min);
}

TEST(MultiplierRedeliveryBackoff, NonPositiveCountsGiveMin) {
  MultiplierRedeliveryBackoff backoff({.min = 3s, .max = 1min, .multiplier = 3});
  EXPECT_EQ(backoff.next(0), 3s);
  EXPECT_EQ(backoff.next(-1), 3s);
  EXPECT_EQ(backoff.next(INT_MIN), 3s);
}

TEST(MultiplierRedeliveryBackoff, SaturatesAtMaxForLargeCounts) {
  MultiplierRedeliveryBackoff backoff({.min = 1s, .max = 1h, .multiplier = 2});
  EXPECT_EQ(backoff.next(11), 2048s);
  EXPECT_EQ(backoff.next(12), 1h);
  EXPECT_EQ(backoff.next(1000), 1h);
  EXPECT_EQ(backoff.next(INT_MAX), 1h);
  MultiplierRedeliveryBackoff huge({.min = 1ms, .max = detail::kLongestDuration, .multiplier = 10});
  EXPECT_EQ(huge.next(30), detail::kLongestDuration);
  EXPECT_EQ(huge.next(INT_MAX), detail::kLongestDuration);
  EXPECT_THROW(MultiplierRedeliveryBackoff({.min = 1ms, .max = milliseconds::max()}), Error)
      << "longer than 100 years would overflow the clock it is added to";
}

TEST(MultiplierRedeliveryBackoff, FractionalMultipliersDropTheFractionOfAMillisecond) {
  MultiplierRedeliveryBackoff backoff({.min = 1s, .max = 1min, .multiplier = 1.5});
  EXPECT_EQ(backoff.next(1), 1500ms);
  EXPECT_EQ(backoff.next(2), 2250ms);
  EXPECT_EQ(backoff.next(3), 3375ms);
  EXPECT_EQ(backoff.next(5), 7593ms);  // 7593.75
}

TEST(MultiplierRedeliveryBackoff, RejectsBadOptionsNamingTheValue) {
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { MultiplierRedeliveryBackoff({.min = 0ms}); }), "min 0s"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { MultiplierRedeliveryBackoff({.min = -1s}); }), "min -1s"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { MultiplierRedeliveryBackoff({.min = 2min, .max = 1min}); }),
               "max 1m"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { MultiplierRedeliveryBackoff({.multiplier = 1}); }),
                       "multiplier 1 "));
  EXPECT_TRUE(mentions(invalidArgumentText([] { MultiplierRedeliveryBackoff({.multiplier = -2}); }),
                       "multiplier -2"));
}

// An application's own backoff: a fixed step per redelivery.
class LinearBackoff final : public RedeliveryBackoff {
 public:
  explicit LinearBackoff(milliseconds step) : step_(step) {}
  milliseconds next(int redeliveryCount) const override {
    return step_ * (redeliveryCount < 0 ? 1 : redeliveryCount + 1);
  }

 private:
  milliseconds step_;
};

milliseconds delayBeforeRedelivery(const RedeliveryBackoff& backoff, int count) {
  return backoff.next(count);
}

TEST(RedeliveryBackoff, UserDefinedBackoffsWorkThroughTheInterface) {
  std::shared_ptr<const RedeliveryBackoff> backoff = std::make_shared<LinearBackoff>(2s);
  EXPECT_EQ(delayBeforeRedelivery(*backoff, 0), 2s);
  EXPECT_EQ(delayBeforeRedelivery(*backoff, 4), 10s);
  std::shared_ptr<const RedeliveryBackoff> multiplier =
      std::make_shared<MultiplierRedeliveryBackoff>();
  EXPECT_EQ(delayBeforeRedelivery(*multiplier, 1), 20s);
}

}  // namespace
}  // namespace reconsume
