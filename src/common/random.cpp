#include "common/random.hpp"

#include <random>

namespace reconsume::detail {
namespace {

std::mt19937_64& threadGenerator() {
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  return generator;
}

}  // namespace

double randomUniform() {
  // The top 53 bits scaled by 2^-53: exactly representable, so the result is never 1.0
  // (std::uniform_real_distribution may round up to its upper bound).
  return static_cast<double>(threadGenerator()() >> 11) * 0x1.0p-53;
}

std::string randomHex(std::size_t digits) {
  constexpr char kDigits[] = "0123456789abcdef";
  auto& generator = threadGenerator();
  std::string text(digits, '0');
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    if (i % 16 == 0) bits = generator();
    text[i] = kDigits[bits & 0xf];
    bits >>= 4;
  }
  return text;
}

}  // namespace reconsume::detail
