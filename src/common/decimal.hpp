// Integers written as decimal text into a buffer, for the retry properties and their history: a
// retry writes about ten numbers (times in milliseconds, the origin's id, counts), and
// std::to_chars spent about eighty instructions on each of the thirteen-digit ones — a digit count
// that loops over powers of ten, then a 64-bit division per pair of digits (callgrind,
// docs/PERFORMANCE.md, the fourteenth round). Here the count is one table lookup and the digits go
// eight at a time through 32-bit arithmetic.
//
// Thread safety: pure functions.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace reconsume::detail {

// The longest text writeDecimal writes: "-9223372036854775808".
inline constexpr std::size_t kMaxDecimalChars = 20;

namespace decimal_detail {

inline constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline constexpr std::array<std::uint64_t, 20> kPowers = [] {
  std::array<std::uint64_t, 20> powers{};
  std::uint64_t power = 1;
  for (auto& p : powers) {
    p = power;
    power *= 10;  // wraps after 10^19, which is never stored
  }
  return powers;
}();

// How many digits `value` has (1 for 0).
inline int digits(std::uint64_t value) {
  // floor(log10(2^bits)) by 1233/4096 ≈ log10(2), then one correction by the table.
  const int bits = 64 - std::countl_zero(value | 1);
  const int guess = (bits * 1233) >> 12;
  return guess + (value >= kPowers[static_cast<std::size_t>(guess)] ? 1 : 0);
}

inline void writePair(char* at, std::uint32_t pair) {
  std::memcpy(at, kPairs + 2 * pair, 2);
}

// Writes `value` (< 10^8) as exactly eight digits ending at `end`.
inline void writeEight(char* end, std::uint32_t value) {
  const std::uint32_t high = value / 10000, low = value % 10000;
  writePair(end - 8, high / 100);
  writePair(end - 6, high % 100);
  writePair(end - 4, low / 100);
  writePair(end - 2, low % 100);
}

}  // namespace decimal_detail

// Writes `value` at `at` (room for kMaxDecimalChars) and returns one past its last digit.
inline char* writeDecimal(char* at, std::uint64_t value) {
  using namespace decimal_detail;
  if (value < 10) {
    *at = static_cast<char>('0' + value);
    return at + 1;
  }
  const int count = digits(value);
  char* const end = at + count;
  char* cursor = end;
  while (value >= 100'000'000) {
    writeEight(cursor, static_cast<std::uint32_t>(value % 100'000'000));
    value /= 100'000'000;
    cursor -= 8;
  }
  auto rest = static_cast<std::uint32_t>(value);
  while (rest >= 100) {
    cursor -= 2;
    writePair(cursor, rest % 100);
    rest /= 100;
  }
  if (rest >= 10) {
    writePair(cursor - 2, rest);
  } else {
    cursor[-1] = static_cast<char>('0' + rest);
  }
  return end;
}

inline char* writeDecimal(char* at, std::int64_t value) {
  if (value >= 0) return writeDecimal(at, static_cast<std::uint64_t>(value));
  *at = '-';
  // Negated in unsigned arithmetic: defined for the smallest int64 too.
  return writeDecimal(at + 1, std::uint64_t{0} - static_cast<std::uint64_t>(value));
}

}  // namespace reconsume::detail
