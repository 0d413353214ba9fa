// Memory for a frame decoder's read chunks, kept for the next chunk once no frame shares it.
//
// A chunk is large (up to 1 MiB) and lives as long as the messages decoded from it. Given back to
// malloc, it often went back to the system at once (glibc trims a heap whose free top passes twice
// the mmap threshold), and the next chunk was faulted in again page by page while the socket's
// bytes were copied into it: page faults took a twentieth of a consumer's CPU. The pool keeps a few
// freed chunks and hands one of the same size out again.
//
// Thread safety: any thread may allocate and deallocate (the last message of a chunk may be
// dropped on the application's thread). ChunkAllocator holds the pool by shared pointer, so a chunk
// that outlives its decoder still has somewhere to go.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace reconsume::detail::protocol {

class ChunkPool {
 public:
  // Keeps at most `keep` freed chunks; more are given back to malloc, the oldest first.
  explicit ChunkPool(std::size_t keep) : keep_(keep) {}
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;
  ~ChunkPool();

  // A kept chunk of exactly `bytes` when there is one, else new memory.
  void* allocate(std::size_t bytes);
  void deallocate(void* memory, std::size_t bytes);
  std::size_t kept() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<void*, std::size_t>> free_;  // the oldest first
  const std::size_t keep_;
};

// std::allocate_shared's allocator for chunks from a ChunkPool.
template <typename T>
struct ChunkAllocator {
  using value_type = T;

  explicit ChunkAllocator(std::shared_ptr<ChunkPool> from) : pool(std::move(from)) {}
  template <typename U>
  ChunkAllocator(const ChunkAllocator<U>& other) : pool(other.pool) {}  // NOLINT: rebinding

  T* allocate(std::size_t n) { return static_cast<T*>(pool->allocate(n * sizeof(T))); }
  void deallocate(T* memory, std::size_t n) { pool->deallocate(memory, n * sizeof(T)); }

  template <typename U>
  bool operator==(const ChunkAllocator<U>& other) const {
    return pool == other.pool;
  }

  std::shared_ptr<ChunkPool> pool;
};

}  // namespace reconsume::detail::protocol
