// Reading a previous RECONSUME_HISTORY: the elements of a JSON array as they are written, so
// that appending keeps them byte for byte instead of re-serialising them.
//
// Thread safety: pure functions and plain values.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

#include "retry/retry_history.hpp"

namespace reconsume::detail::retry {

// The last elements of a JSON array, in order: only the newest kHistoryMaxEntries - 1 of the
// previous entries can survive the append, so older ones are counted and forgotten.
class LastElements {
 public:
  void add(std::string_view element) {
    ring_[total_ % ring_.size()] = element;
    ++total_;
  }
  std::size_t size() const { return std::min(total_, ring_.size()); }
  // i-th kept element, oldest first.
  std::string_view operator[](std::size_t i) const {
    return ring_[(total_ - size() + i) % ring_.size()];
  }

 private:
  std::array<std::string_view, kHistoryMaxEntries - 1> ring_;
  std::size_t total_ = 0;
};

// The last kHistoryMaxEntries - 1 elements of `text` when it is a valid JSON array (as
// Boost.JSON judges it); none otherwise. The views point into `text`.
LastElements lastArrayElements(std::string_view text);

}  // namespace reconsume::detail::retry
