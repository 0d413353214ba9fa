// The random source a RetryPolicy uses for jitter unless the application gives its own.
//
// Thread safety: the returned source may be called from any number of threads at once; each
// thread draws from its own generator.
#pragma once

#include "reconsume/retry_policy.hpp"

namespace reconsume::detail::retry {

// Uniform in [0, 1), from a per-thread std::mt19937_64 seeded from std::random_device.
RandomSource defaultRandomSource();

}  // namespace reconsume::detail::retry
