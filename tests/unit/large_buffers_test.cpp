// common/large_buffers.hpp: a batch's frame buffer is reused once the frame is gone, within bounds.
// Buffers are recognised by the address of their memory.
#include "common/large_buffers.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace reconsume::detail {
namespace {

constexpr std::size_t kBatch = std::size_t{128} << 10;

TEST(LargeBuffers, ABufferGivenBackIsTakenAgainEmptyWithItsRoom) {
  LargeBuffers buffers;
  auto buffer = buffers.take(kBatch + 100);
  buffer.assign(kBatch, 'x');
  const auto* memory = buffer.data();
  buffers.give(std::move(buffer));

  auto again = buffers.take(kBatch + 50);
  EXPECT_EQ(again.data(), memory);
  EXPECT_TRUE(again.empty());
  EXPECT_GE(again.capacity(), kBatch + 100);
  buffers.give(std::move(again));

  // Asking for more than it holds gets another buffer; the kept one stays for a smaller request.
  auto bigger = buffers.take(2 * kBatch);
  EXPECT_NE(bigger.data(), memory);
  EXPECT_GE(bigger.capacity(), 2 * kBatch);
  EXPECT_EQ(buffers.take(kBatch).data(), memory);
}

TEST(LargeBuffers, AFrameKeepsItsBytesUntilTheLastSliceIsGoneThenItsBufferIsKept) {
  LargeBuffers buffers;
  auto buffer = buffers.take(kBatch);
  buffer.assign(kBatch, 'a');
  buffer.replace(10, 5, "frame");
  const auto* memory = buffer.data();
  auto frame = buffers.adopt(std::move(buffer), 10, 5);
  EXPECT_EQ(frame.view(), "frame");
  auto slice = frame.slice(1, 3);
  frame = Bytes();
  EXPECT_EQ(slice.view(), "ram");  // still there: the slice shares the buffer
  EXPECT_NE(buffers.take(kBatch).data(), memory) << "given back while a slice still used it";

  slice = Bytes();
  EXPECT_EQ(buffers.take(kBatch).data(), memory);
}

TEST(LargeBuffers, SmallAndHugeBuffersAreLeftToTheirOwner) {
  LargeBuffers buffers;
  std::string small;
  small.reserve(kSmallestKept / 2);
  const auto* smallMemory = small.data();
  buffers.give(std::move(small));
  EXPECT_EQ(small.data(), smallMemory);
  EXPECT_NE(buffers.take(kSmallestKept / 4).data(), smallMemory);

  std::string huge;
  huge.reserve(kLargestKept + 1);
  const auto* hugeMemory = huge.data();
  buffers.give(std::move(huge));
  EXPECT_EQ(huge.data(), hugeMemory);
}

TEST(LargeBuffers, AtMostTheKeptBytesAreKept) {
  constexpr std::size_t kMost = 4 * kBatch;
  constexpr int kGiven = 10;
  LargeBuffers buffers(kMost);
  std::set<const char*> given;
  std::vector<std::string> held;
  for (int i = 0; i < kGiven; ++i) held.push_back(buffers.take(kBatch));
  for (auto& buffer : held) {
    given.insert(buffer.data());
    buffers.give(std::move(buffer));
  }
  // `held` still owns the buffers that were not kept, so malloc cannot hand their memory out again.
  std::vector<std::string> taken;
  std::size_t kept = 0;
  for (int i = 0; i < kGiven; ++i) {
    taken.push_back(buffers.take(kBatch));
    kept += given.count(taken.back().data());
  }
  EXPECT_EQ(kept, kMost / kBatch);
}

}  // namespace
}  // namespace reconsume::detail
