#include "common/duration.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

TEST(Duration, ParsesEachUnit) {
  EXPECT_EQ(parseDuration("250ms"), 250ms);
  EXPECT_EQ(parseDuration("30s"), 30s);
  EXPECT_EQ(parseDuration("1m"), 1min);
  EXPECT_EQ(parseDuration("2h"), 2h);
  EXPECT_EQ(parseDuration("7d"), 7 * 24h);
  EXPECT_EQ(parseDuration("007s"), 7s);
}

TEST(Duration, AcceptsZeroLeavingTheCheckToCallers) {
  EXPECT_EQ(parseDuration("0s"), 0ms);
  EXPECT_EQ(parseDuration("0ms"), 0ms);
}

TEST(Duration, AcceptsAHundredYearsAndRejectsLongerNamingTheToken) {
  EXPECT_EQ(parseDuration("36525d"), kLongestDuration);
  EXPECT_EQ(parseDuration("3155760000000ms"), kLongestDuration);
  // Longer ones would overflow the nanosecond clocks they are added to: "never" as the largest
  // number of milliseconds once came round as "at once".
  for (const char* token : {"36526d", "3155760000001ms", "110000d", "9223372036854775807ms",
                            "9223372036854775808ms", "99999999999999999999999s"}) {
    try {
      parseDuration(token);
      FAIL() << "accepted " << token;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + token + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(tooLong(kLongestDuration), "");
  EXPECT_EQ(tooLong(kLongestDuration + 1ms),
            "3155760000001ms is longer than the longest accepted, 36525d (100 years)");
}

TEST(Duration, RejectsMalformedTokensNamingThem) {
  for (const char* token : {"", "5", "5x", "5S", "5 s", " 5s", "5s ", "s", "-5s", "+5s", "1.5s",
                            "5sec", "5msx", "0x10s", "5mss"}) {
    try {
      parseDuration(token);
      FAIL() << "accepted '" << token << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + token + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Duration, TryParseExplainsWithoutThrowing) {
  std::string problem;
  EXPECT_FALSE(tryParseDuration("5", &problem));
  EXPECT_NE(problem.find("unit is missing"), std::string::npos) << problem;
  EXPECT_FALSE(tryParseDuration("5w", &problem));
  EXPECT_NE(problem.find("unknown unit 'w'"), std::string::npos) << problem;
  EXPECT_FALSE(tryParseDuration("-5s", &problem));
  EXPECT_NE(problem.find("sign"), std::string::npos) << problem;
  EXPECT_FALSE(tryParseDuration("x"));  // no problem pointer: still fine
  EXPECT_EQ(tryParseDuration("5m"), 5min);
}

TEST(Duration, FormatsInTheLargestExactUnit) {
  EXPECT_EQ(formatDuration(90s), "90s");
  EXPECT_EQ(formatDuration(2h), "2h");
  EXPECT_EQ(formatDuration(1500ms), "1500ms");
  EXPECT_EQ(formatDuration(24h), "1d");
  EXPECT_EQ(formatDuration(25h), "25h");
  EXPECT_EQ(formatDuration(60s), "1m");
  EXPECT_EQ(formatDuration(0ms), "0s");
  EXPECT_EQ(formatDuration(-5s), "-5s");
}

TEST(Duration, FormatRoundTripsThroughParse) {
  for (milliseconds value : std::vector<milliseconds>{1ms, 999ms, 1000ms, 61s, 3600s, 90min, 48h,
                                                      86'400'001ms, kLongestDuration}) {
    EXPECT_EQ(parseDuration(formatDuration(value)), value) << formatDuration(value);
  }
}

}  // namespace
}  // namespace reconsume::detail
