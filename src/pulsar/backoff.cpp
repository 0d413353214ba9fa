#include "pulsar/backoff.hpp"

#include <algorithm>

#include "common/random.hpp"

namespace reconsume::detail::pulsar {

Backoff::Backoff(Options options, Random random)
    : options_(options), random_(random ? std::move(random) : Random(randomUniform)) {}

std::chrono::milliseconds Backoff::next() {
  using std::chrono::milliseconds;
  // Doubling stops mattering long before 2^30; capping the exponent keeps the shift defined.
  auto exponent = std::min(failures_, 30);
  if (failures_ < 64) ++failures_;
  double base =
      static_cast<double>(options_.initial.count()) * static_cast<double>(1LL << exponent);
  base = std::min(base, static_cast<double>(options_.max.count()));
  double cut = base * options_.jitter * std::clamp(random_(), 0.0, 1.0);
  return milliseconds(static_cast<milliseconds::rep>(base - cut));
}

}  // namespace reconsume::detail::pulsar
