// A magazine cache (as in Bonwick's slab allocator): each thread keeps freed blocks per size
// class (its magazine of that class), and hands them on to a shared depot, or takes them from it, a
// batch at a time — one lock per 32 blocks, where malloc took its arena's lock per block freed on
// another thread.
#include "reconsume/detail/recycled_blocks.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace reconsume::detail {

namespace {

constexpr std::size_t kGranule = 32;
constexpr std::size_t kLargest = 1024;
constexpr std::size_t kClasses = kLargest / kGranule;
constexpr std::size_t kBatch = 32;
constexpr std::size_t kThreadKeeps = 2 * kBatch;  // per class: half of it goes when it is full
// What the depot keeps, all classes together: about what a thousand retries in flight hold.
constexpr std::size_t kDepotBytes = std::size_t{2} << 20;

std::size_t classOf(std::size_t bytes) {
  return (bytes - 1) / kGranule;
}
std::size_t classBytes(std::size_t sizeClass) {
  return (sizeClass + 1) * kGranule;
}

// A kept block is poisoned under AddressSanitizer: using it is reported as a use after free.
void poison([[maybe_unused]] void* block, [[maybe_unused]] std::size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_POISON_MEMORY_REGION(block, bytes);
#endif
}
void unpoison([[maybe_unused]] void* block, [[maybe_unused]] std::size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#endif
}

// Unsized: the block's size is its class's, not what the caller asked for.
void release(void* block, std::size_t sizeClass) {
  unpoison(block, classBytes(sizeClass));
  ::operator delete(block);
}

struct Batch {
  std::size_t count = 0;
  std::array<void*, kBatch> blocks{};
};

// The batches every thread may take from. Never destroyed: threads may free blocks while the
// process exits, after static objects are gone.
class Depot {
 public:
  // Keeps `count` blocks from `blocks` (at most kBatch); false when the class is full (the caller
  // releases them).
  bool put(std::size_t sizeClass, void* const* blocks, std::size_t count) {
    const auto bytes = count * classBytes(sizeClass);
    std::lock_guard lock(mutex_);
    if (bytes_ + bytes > kDepotBytes) return false;
    auto& batches = batches_[sizeClass];
    try {
      batches.emplace_back();
    } catch (const std::bad_alloc&) {
      return false;  // called from freeRecycled, which must not throw
    }
    bytes_ += bytes;
    batches.back().count = count;
    std::copy(blocks, blocks + count, batches.back().blocks.begin());
    return true;
  }

  // Moves one batch into `out`; how many blocks it held (0: none kept).
  std::size_t take(std::size_t sizeClass, void** out) {
    std::lock_guard lock(mutex_);
    auto& batches = batches_[sizeClass];
    if (batches.empty()) return 0;
    const auto& batch = batches.back();
    const auto count = batch.count;
    std::copy(batch.blocks.begin(), batch.blocks.begin() + static_cast<std::ptrdiff_t>(count), out);
    batches.pop_back();
    bytes_ -= count * classBytes(sizeClass);
    return count;
  }

 private:
  std::mutex mutex_;
  std::array<std::vector<Batch>, kClasses> batches_;
  std::size_t bytes_ = 0;  // in all batches
};

Depot& depot() {
  static auto* shared = new Depot;  // NOLINT: never destroyed (above)
  return *shared;
}

// Hands `count` blocks (at most kBatch) to the depot, or back to operator delete when it is full.
void giveAway(std::size_t sizeClass, void* const* blocks, std::size_t count) noexcept {
  if (depot().put(sizeClass, blocks, count)) return;
  for (std::size_t i = 0; i < count; ++i) release(blocks[i], sizeClass);
}

// One thread's blocks of one size class.
struct Magazine {
  std::size_t count = 0;
  std::array<void*, kThreadKeeps> blocks;
};

// Set once this thread's magazines are gone (thread exit): frees then go straight to operator
// delete.
thread_local bool tMagazinesGone = false;

// A thread's magazines, each made when the thread first uses its class (a thread that makes one
// kind of object holds one, not the 16 KiB of all classes), handed to the depot when the thread
// ends.
class ThreadMagazines {
 public:
  ThreadMagazines() = default;
  ThreadMagazines(const ThreadMagazines&) = delete;
  ThreadMagazines& operator=(const ThreadMagazines&) = delete;
  ~ThreadMagazines() {
    tMagazinesGone = true;
    for (std::size_t sizeClass = 0; sizeClass < kClasses; ++sizeClass) {
      auto* magazine = magazines_[sizeClass];
      if (magazine == nullptr) continue;
      auto count = magazine->count;
      while (count > 0) {
        const auto n = std::min(count, kBatch);
        count -= n;
        giveAway(sizeClass, magazine->blocks.data() + count, n);
      }
      delete magazine;
    }
  }

  // Null when it cannot be made (out of memory): the block goes to operator new or delete.
  Magazine* of(std::size_t sizeClass) noexcept {
    auto*& magazine = magazines_[sizeClass];
    if (magazine == nullptr) magazine = new (std::nothrow) Magazine;
    return magazine;
  }

 private:
  std::array<Magazine*, kClasses> magazines_{};
};

thread_local ThreadMagazines tMagazines;

// Asks for the first lines of the block this thread hands out next, for writing. A block comes back
// from the thread that freed it, in that core's cache: a retry's move, made on the application's
// thread and freed on the I/O thread, stalled on its first stores while the other core gave up the
// lines (the move's function took 12% of the application thread's CPU samples, most of them on
// its first stores). Asked one allocation ahead, the lines arrive while the thread does other
// work: 5% less CPU per reconsumeLater, 24 of 30 paired rounds cheaper (scripts/perf-ab.sh;
// docs/PERFORMANCE.md, the twenty-first look). PREFETCHW executes as a no-op on x86-64 processors
// that predate it.
void prefetchForWrite(const void* block, std::size_t bytes) noexcept {
  constexpr std::size_t kLine = 64, kLines = 4;
  const auto* at = static_cast<const char*>(block);
  for (std::size_t offset = 0; offset < std::min(bytes, kLine * kLines); offset += kLine) {
#if defined(__x86_64__)
    // Not __builtin_prefetch: without -mprfchw it is PREFETCHT0, which leaves the other core a
    // copy, so the first store still waits.
    asm volatile("prefetchw %0" : : "m"(at[offset]));
#else
    __builtin_prefetch(at + offset, 1, 3);
#endif
  }
}

Magazine* magazineOf(std::size_t sizeClass) noexcept {
  if (tMagazinesGone) return nullptr;
  return tMagazines.of(sizeClass);
}

}  // namespace

void* allocateRecycled(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes > kLargest) return ::operator new(bytes);
  const auto sizeClass = classOf(bytes);
  if (auto* magazine = magazineOf(sizeClass)) {
    auto& count = magazine->count;
    auto* blocks = magazine->blocks.data();
    if (count == 0) count = depot().take(sizeClass, blocks);
    if (count > 0) {
      void* block = blocks[--count];
      if (count > 0) prefetchForWrite(blocks[count - 1], classBytes(sizeClass));
      unpoison(block, classBytes(sizeClass));
      return block;
    }
  }
  return ::operator new(classBytes(sizeClass));
}

void freeRecycled(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  if (bytes == 0) bytes = 1;
  if (bytes > kLargest) return ::operator delete(block);
  const auto sizeClass = classOf(bytes);
  auto* magazine = magazineOf(sizeClass);
  if (magazine == nullptr) return release(block, sizeClass);
  auto& count = magazine->count;
  auto* blocks = magazine->blocks.data();
  if (count == kThreadKeeps) {
    // The older half goes (to a thread that allocates without freeing, typically); the newer,
    // likelier still in this core's cache, stays.
    giveAway(sizeClass, blocks, kBatch);
    std::copy(blocks + kBatch, blocks + kThreadKeeps, blocks);
    count -= kBatch;
  }
  poison(block, classBytes(sizeClass));
  blocks[count++] = block;
}

}  // namespace reconsume::detail
