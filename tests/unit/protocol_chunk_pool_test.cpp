// protocol::ChunkPool: the memory of a frame decoder's read chunks, kept for the next chunk.
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "protocol/chunk_pool.hpp"

namespace reconsume::detail::protocol {
namespace {

TEST(ChunkPool, AFreedChunkIsHandedOutAgainForTheSameSizeOnly) {
  ChunkPool pool(2);
  void* first = pool.allocate(4096);
  pool.deallocate(first, 4096);
  EXPECT_EQ(pool.kept(), 1u);
  void* other = pool.allocate(8192);
  EXPECT_NE(other, first) << "another size is new memory";
  EXPECT_EQ(pool.allocate(4096), first);
  EXPECT_EQ(pool.kept(), 0u);
  pool.deallocate(first, 4096);
  pool.deallocate(other, 8192);
}

TEST(ChunkPool, KeepsAtMostItsNumberTheOldestGoingFirst) {
  ChunkPool pool(2);
  void* a = pool.allocate(64);
  void* b = pool.allocate(64);
  void* c = pool.allocate(64);
  pool.deallocate(a, 64);
  pool.deallocate(b, 64);
  pool.deallocate(c, 64);  // `a` goes back to malloc
  EXPECT_EQ(pool.kept(), 2u);
  void* again1 = pool.allocate(64);
  void* again2 = pool.allocate(64);
  EXPECT_EQ(again1, c) << "the most recently freed first";
  EXPECT_EQ(again2, b);
  pool.deallocate(again1, 64);
  pool.deallocate(again2, 64);
}

TEST(ChunkPool, AChunkOutlivingItsDecoderStillHasItsPool) {
  auto pool = std::make_shared<ChunkPool>(1);
  auto chunk = std::allocate_shared_for_overwrite<char[]>(ChunkAllocator<char>(pool), 1024);
  std::weak_ptr<ChunkPool> watch = pool;
  pool.reset();  // the decoder is gone
  EXPECT_FALSE(watch.expired()) << "the chunk's allocator holds the pool";
  // Let go on another thread, as an application's thread drops a chunk's last message.
  std::thread([chunk = std::move(chunk)]() mutable { chunk.reset(); }).join();
  EXPECT_TRUE(watch.expired()) << "and lets it go with the chunk";
}

}  // namespace
}  // namespace reconsume::detail::protocol
