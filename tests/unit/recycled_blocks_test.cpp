// detail::allocateRecycled / freeRecycled (include/reconsume/detail/recycled_blocks.hpp): blocks
// freed on one thread come back to the thread that allocates. Each test uses a size class of its
// own (classes are 32 bytes wide), so that blocks kept by an earlier test do not answer for it.
#include "reconsume/detail/recycled_blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace reconsume::detail {
namespace {

TEST(RecycledBlocks, AThreadGetsBackTheBlockItFreedForAnySizeOfItsClass) {
  std::thread([] {
    void* first = allocateRecycled(1000);
    std::memset(first, 1, 1000);
    freeRecycled(first, 1000);
    void* second = allocateRecycled(993);  // 993..1024: the same class
    EXPECT_EQ(second, first);
    void* other = allocateRecycled(960);  // the class below: not that block
    EXPECT_NE(other, first);
    freeRecycled(other, 960);
    freeRecycled(second, 993);
  }).join();
}

TEST(RecycledBlocks, BlocksFreedOnAnotherThreadGoBackToTheThreadThatAllocates) {
  constexpr std::size_t kSize = 900, kCount = 96;  // three batches
  std::thread([&] {
    std::vector<void*> made(kCount);
    for (auto& block : made) block = allocateRecycled(kSize);
    // Freed on another thread, as the I/O thread frees what an application thread made.
    std::thread([&] {
      for (auto* block : made) freeRecycled(block, kSize);
    }).join();
    const std::set<void*> before(made.begin(), made.end());
    std::vector<void*> again(kCount);
    for (auto& block : again) block = allocateRecycled(kSize);
    for (auto* block : again) {
      EXPECT_TRUE(before.count(block)) << "a new block where a freed one was kept";
    }
    EXPECT_EQ(std::set<void*>(again.begin(), again.end()).size(), kCount) << "each given once";
    for (auto* block : again) freeRecycled(block, kSize);
  }).join();
}

TEST(RecycledBlocks, AnAllocateSharedObjectReusesTheBlockOfTheOneBeforeIt) {
  using Object = std::array<char, 700>;
  std::thread([] {
    auto first = std::allocate_shared<Object>(RecyclingAllocator<Object>());
    const void* where = first.get();
    first.reset();
    auto second = std::allocate_shared<Object>(RecyclingAllocator<Object>());
    EXPECT_EQ(static_cast<const void*>(second.get()), where);
  }).join();
}

TEST(RecycledBlocks, StringsLongerThanAKiBAndEmptyRequestsWork) {
  using String = std::basic_string<char, std::char_traits<char>, RecyclingAllocator<char>>;
  String large(5000, 'x');  // beyond the largest class: operator new
  large += large;
  EXPECT_EQ(large.size(), 10000u);
  EXPECT_EQ(std::count(large.begin(), large.end(), 'x'), 10000);
  void* none = allocateRecycled(0);
  EXPECT_NE(none, nullptr);
  freeRecycled(none, 0);
  freeRecycled(nullptr, 64);  // as operator delete: nothing
}

#if defined(__SANITIZE_ADDRESS__)
TEST(RecycledBlocks, AKeptBlockIsPoisonedUntilItIsGivenOutAgain) {
  std::thread([] {
    auto* block = static_cast<char*>(allocateRecycled(800));
    EXPECT_FALSE(__asan_address_is_poisoned(block + 799));
    freeRecycled(block, 800);
    EXPECT_TRUE(__asan_address_is_poisoned(block)) << "a use after free would go unreported";
    auto* again = static_cast<char*>(allocateRecycled(800));
    ASSERT_EQ(again, block);
    EXPECT_FALSE(__asan_address_is_poisoned(again + 799));
    freeRecycled(again, 800);
  }).join();
}
#endif

}  // namespace
}  // namespace reconsume::detail
