#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "reconsume/retry_policy.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

using testing::invalidArgumentText;
using testing::mentions;

TEST(DelayLevels, ParsesWhitespaceSeparatedTokens) {
  auto table = DelayLevels::parse(" 1s\t5s\n\n250ms  2h\r\n");
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table.delays(), (std::vector<milliseconds>{1s, 5s, 250ms, 2h}));
}

TEST(DelayLevels, DefaultTableHasTheEighteenLevels) {
  auto table = DelayLevels::defaultTable();
  EXPECT_EQ(table.delays(),
            (std::vector<milliseconds>{1s, 5s, 10s, 30s, 1min, 2min, 3min, 4min, 5min, 6min, 7min,
                                       8min, 9min, 10min, 20min, 30min, 1h, 2h}));
  EXPECT_EQ(table.toString(), "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");
}

TEST(DelayLevels, DoesNotRequireIncreasingDelays) {
  auto table = DelayLevels::parse("30s 1s 1s");
  EXPECT_EQ(table.at(1), 30s);
  EXPECT_EQ(table.at(2), 1s);
  EXPECT_EQ(table.at(3), 1s);
}

TEST(DelayLevels, ErrorsNameTheTokenAndItsPosition) {
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::parse("1s 5s x5s"); }),
                       "delay level 3 'x5s'"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("1s 0s"); }), "delay level 2 '0s'"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("1s 0s"); }), "greater than zero"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("-1s"); }), "delay level 1 '-1s'"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("1s 5"); }), "delay level 2 '5'"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("1s 5s 1m 99999999999999999999d"); }),
               "delay level 4 '99999999999999999999d'"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::parse("1s,5s"); }), "delay level 1 '1s,5s'"));
}

TEST(DelayLevels, EmptyTableIsAnError) {
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::parse(""); }), "empty"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::parse(" \t\n "); }), "empty"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::of({}); }), "empty"));
}

TEST(DelayLevels, OfAppliesTheSameRules) {
  EXPECT_EQ(DelayLevels::of({1s, 2s}), DelayLevels::parse("1s 2s"));
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::of({1s, 0ms}); }), "delay level 2"));
  EXPECT_TRUE(
      mentions(invalidArgumentText([] { DelayLevels::of({-5ms}); }), "delay level 1 (-5ms)"));
}

TEST(DelayLevels, ALevelLongerThanAHundredYearsIsAnError) {
  // It once passed and, added to the clock in nanoseconds, came round as a retry at once.
  EXPECT_TRUE(mentions(invalidArgumentText([] { DelayLevels::parse("1s 110000d"); }),
                       "delay level 2 '110000d'"));
  EXPECT_TRUE(mentions(invalidArgumentText([] {
                         DelayLevels::of({1s, std::chrono::milliseconds::max()});
                       }),
                       "delay level 2: 9223372036854775807ms is longer than the longest accepted"));
  EXPECT_EQ(DelayLevels::parse("36525d").at(1), std::chrono::hours(24) * 36525);
}

TEST(DelayLevels, AtIsOneBasedAndRejectsLevelsOutsideTheTable) {
  auto table = DelayLevels::defaultTable();
  EXPECT_EQ(table.at(1), 1s);
  EXPECT_EQ(table.at(18), 2h);
  for (int level : {0, -1, 19}) {
    auto text = invalidArgumentText([&] { table.at(level); });
    EXPECT_TRUE(mentions(text, "level " + std::to_string(level)));
    EXPECT_TRUE(mentions(text, "1..18"));
  }
}

TEST(DelayLevels, ToStringRoundTripsThroughParse) {
  auto table = DelayLevels::parse("60s 90s 1000ms 120m 1500ms 86400s");
  EXPECT_EQ(table.toString(), "1m 90s 1s 2h 1500ms 1d");
  EXPECT_EQ(DelayLevels::parse(table.toString()), table);
  EXPECT_EQ(DelayLevels::parse(DelayLevels::defaultTable().toString()),
            DelayLevels::defaultTable());
}

}  // namespace
}  // namespace reconsume
