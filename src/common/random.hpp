// Randomness for jitter and for names the user left unset, from one per-thread generator.
//
// Names must differ between processes: two readers of one topic in two processes would
// otherwise ask for the same exclusive subscription, so a per-process counter will not do.
//
// Thread safety: safe from any thread (each thread draws from its own std::mt19937_64, seeded
// from std::random_device).
#pragma once

#include <cstddef>
#include <string>

namespace reconsume::detail {

// Uniform in [0, 1): never 1.0.
double randomUniform();

// `digits` lowercase hexadecimal digits.
std::string randomHex(std::size_t digits);

}  // namespace reconsume::detail
