#include "retry/default_random_source.hpp"

#include <random>

namespace reconsume::detail::retry {
namespace {

double drawUniform() {
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  // The top 53 bits scaled by 2^-53: exactly representable, so the result is never 1.0
  // (std::uniform_real_distribution may round up to its upper bound).
  return static_cast<double>(generator() >> 11) * 0x1.0p-53;
}

}  // namespace

RandomSource defaultRandomSource() {
  return &drawUniform;
}

}  // namespace reconsume::detail::retry
