// Integers as decimal text (common/decimal.hpp), held to std::to_chars: around every power of ten
// (where the digit count changes), at the limits of both types, and over random values of every
// length.
#include "common/decimal.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace reconsume::detail {
namespace {

template <typename Integer>
std::string expected(Integer value) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

template <typename Integer>
std::string written(Integer value) {
  // Guard bytes after the room the writer may use: none is touched.
  char text[kMaxDecimalChars + 4];
  std::memset(text, '#', sizeof text);
  char* end = writeDecimal(text, value);
  for (const char* guard = text + kMaxDecimalChars; guard < text + sizeof text; ++guard) {
    EXPECT_EQ(*guard, '#') << "wrote past the room for " << expected(value);
  }
  return std::string(text, end);
}

TEST(Decimal, EveryDigitCountAtItsEdges) {
  std::uint64_t power = 1;
  for (int exponent = 0; exponent <= 19; ++exponent, power *= 10) {
    for (std::uint64_t value : {power - 1, power, power + 1, 2 * power - 1, 9 * power}) {
      EXPECT_EQ(written(value), expected(value));
      const auto signedValue = static_cast<std::int64_t>(value);
      if (signedValue >= 0) {
        EXPECT_EQ(written(signedValue), expected(signedValue));
        EXPECT_EQ(written(-signedValue), expected(-signedValue));
      }
    }
  }
}

TEST(Decimal, TheLimitsOfBothTypes) {
  EXPECT_EQ(written(std::uint64_t{0}), "0");
  EXPECT_EQ(written(std::int64_t{0}), "0");
  EXPECT_EQ(written(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(written(std::numeric_limits<std::int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(written(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(written(std::int64_t{-1}), "-1");
}

TEST(Decimal, RandomValuesOfEveryLength) {
  std::mt19937_64 random(20261128);
  for (int i = 0; i < 200'000; ++i) {
    // A random number of significant bits, so that short numbers are as common as long ones.
    const int bits = 1 + static_cast<int>(random() % 64);
    const std::uint64_t value = random() >> (64 - bits);
    ASSERT_EQ(written(value), expected(value));
    const auto signedValue = static_cast<std::int64_t>(value);
    ASSERT_EQ(written(signedValue), expected(signedValue));
  }
}

}  // namespace
}  // namespace reconsume::detail
