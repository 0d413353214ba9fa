#include "protocol/chunk_pool.hpp"

#include <new>

namespace reconsume::detail::protocol {

ChunkPool::~ChunkPool() {
  for (auto& [memory, bytes] : free_) ::operator delete(memory);
}

void* ChunkPool::allocate(std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    // The most recently freed first: its pages are the likeliest to be in the cache still.
    for (auto kept = free_.rbegin(); kept != free_.rend(); ++kept) {
      if (kept->second != bytes) continue;
      void* memory = kept->first;
      free_.erase(std::next(kept).base());
      return memory;
    }
  }
  return ::operator new(bytes);
}

void ChunkPool::deallocate(void* memory, std::size_t bytes) {
  void* dropped = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (keep_ == 0) {
      dropped = memory;
    } else {
      if (free_.size() == keep_) {
        dropped = free_.front().first;
        free_.erase(free_.begin());
      }
      free_.emplace_back(memory, bytes);
    }
  }
  ::operator delete(dropped);  // outside the lock; nothing when null
}

std::size_t ChunkPool::kept() const {
  std::lock_guard lock(mutex_);
  return free_.size();
}

}  // namespace reconsume::detail::protocol
