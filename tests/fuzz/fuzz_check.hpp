// What the fuzz targets share: an invariant check that aborts (libFuzzer then saves the input),
// and the rule that a parser refuses bad input with reconsume::Error of one documented code and
// never with another code or another exception type.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "reconsume/error.hpp"

namespace reconsume::fuzz {

// A broken invariant: report which and abort, so libFuzzer records the input as a crash.
inline void check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// Runs `parse`: true when it returned, false when it threw Error(`expected`). Any other error code
// or exception type (std::out_of_range from a stray .at(), std::bad_alloc, ...) aborts.
template <typename Parse>
bool accepts(Parse&& parse, errc expected = errc::invalid_argument) {
  try {
    parse();
    return true;
  } catch (const Error& e) {
    if (e.code() != expected) {
      std::fprintf(stderr, "fuzz invariant broken: Error with another code: %s\n", e.what());
      std::abort();
    }
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz invariant broken: exception other than Error: %s\n", e.what());
    std::abort();
  }
}

}  // namespace reconsume::fuzz
