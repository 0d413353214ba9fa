// Memory for the small objects an operation makes on the application's thread and frees on the
// client's I/O thread — an async call's completion, a retry's move, a batched message's metadata.
// A block freed on one thread goes back, with others in a batch of 32, to whichever thread
// allocates blocks of its size next.
//
// Why: glibc's malloc keeps freed blocks in a cache per thread. Blocks made on the application's
// thread and freed on the I/O thread fill the I/O thread's cache and then go back to the
// application thread's arena one at a time, under that arena's lock; the application's thread
// never finds one in its own cache and takes malloc's slow path for each. In `reconsume perf`'s
// reconsumeLater phase, malloc's slow path alone was 4% of the CPU samples, and the I/O thread
// slept on the other thread's arena lock hundreds of times a run. An allocator that
// recycles across threads (jemalloc, tcmalloc) would fix it too, but which malloc a process uses
// is the application's choice, not the library's.
//
// Blocks are kept by size class (multiples of 32 bytes, up to 1 KiB; larger requests go to
// operator new): up to 64 per class in each thread, and batches of 32 shared between threads up
// to 2 MiB in all; beyond that, freed blocks go back to operator delete. Each allocation asks the
// processor for the next block's first cache lines, for writing: a block freed on the other thread
// is still in that core's cache. Under AddressSanitizer a kept block is poisoned, so that a use
// after free is still reported.
//
// Thread safety: allocate and free from any thread; a block may be freed on another thread than
// the one that allocated it.
#pragma once

#include <cstddef>
#include <new>

namespace reconsume::detail {

// At least `bytes` of memory aligned for any fundamental type (as operator new). Throws
// std::bad_alloc.
void* allocateRecycled(std::size_t bytes);
// Gives back a block of allocateRecycled(bytes), `bytes` the same as it was allocated with.
void freeRecycled(void* block, std::size_t bytes) noexcept;

// A standard allocator over allocateRecycled, for std::allocate_shared and containers.
template <typename T>
class RecyclingAllocator {
 public:
  using value_type = T;
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "RecyclingAllocator: over-aligned types are not supported");

  RecyclingAllocator() noexcept = default;
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocateRecycled(n * sizeof(T)));
  }
  void deallocate(T* block, std::size_t n) noexcept { freeRecycled(block, n * sizeof(T)); }

  template <typename U>
  friend bool operator==(const RecyclingAllocator&, const RecyclingAllocator<U>&) noexcept {
    return true;
  }
};

}  // namespace reconsume::detail
