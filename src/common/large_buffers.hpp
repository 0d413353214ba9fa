// Large buffers kept for reuse: the buffer a producer writes a batch entry's frame into (about
// 128 KiB by default) goes back here when the broker has acknowledged the entry, and the next
// batch is written into it.
//
// Why: a 128 KiB block is at malloc's thresholds. Freed, it sits at the top of the I/O thread's
// arena, which malloc then trims, handing the pages back to the kernel (MADV_DONTNEED); the next
// batch touches fresh pages, and the kernel zeroes each one on its first write. In `reconsume
// perf`'s publish phase against Pulsar, the zeroing alone (clear_page_erms) was 8% of the CPU
// samples of the phase. A kept buffer's pages stay mapped.
//
// At most kKeptBytes are kept in all, and no buffer bigger than kLargestKept (a batch of large
// messages is rare; its buffer goes back to malloc).
//
// Thread safety: every function may be called from any thread.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "common/bytes.hpp"

namespace reconsume::detail {

inline constexpr std::size_t kLargestKept = std::size_t{2} << 20;
inline constexpr std::size_t kKeptBytes = std::size_t{2} << 20;
// Smaller buffers are left to malloc, which keeps them without trimming.
inline constexpr std::size_t kSmallestKept = std::size_t{16} << 10;

class LargeBuffers {
 public:
  // Keeps at most `keptBytes` in all.
  explicit LargeBuffers(std::size_t keptBytes = kKeptBytes);
  LargeBuffers(const LargeBuffers&) = delete;
  LargeBuffers& operator=(const LargeBuffers&) = delete;

  // The buffers the library's producers share. Never destroyed: a buffer may come back while the
  // process exits, after static objects are gone.
  static LargeBuffers& shared();

  // An empty string with room for at least `capacity` bytes: a kept one when there is one.
  std::string take(std::size_t capacity);
  // Keeps `buffer`'s memory for a later take(), unless it is smaller than kSmallestKept, bigger
  // than kLargestKept, or enough is kept already; then it is left to the caller, unchanged.
  void give(std::string&& buffer) noexcept;
  // Bytes [offset, offset + count) of `buffer`, which is given back here when the last copy of
  // the Bytes (or of a slice of them) is gone. These LargeBuffers must outlive the Bytes.
  Bytes adopt(std::string&& buffer, std::size_t offset, std::size_t count);

 private:
  std::mutex mutex_;
  std::vector<std::string> kept_;  // reserved for the most that can be kept: give() allocates none
  std::size_t keptBytes_ = 0;
  const std::size_t mostBytes_;
};

}  // namespace reconsume::detail
