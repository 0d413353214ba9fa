// The receive queue's hand-over of several messages at once (pushAll): order kept, async
// receivers served first, a blocked receiver woken, and the same rules as push() for a queue
// that is closed or whose slot was dropped.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "client/receive_queue.hpp"

namespace reconsume::detail::client {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<MessageData> queuedMessageAt(std::int64_t entry) {
  auto data = std::make_shared<MessageData>();
  data->id = MessageId(1, entry, -1);
  return data;
}

std::vector<std::shared_ptr<MessageData>> entries(std::int64_t first, std::int64_t count) {
  std::vector<std::shared_ptr<MessageData>> messages;
  for (auto entry = first; entry < first + count; ++entry)
    messages.push_back(queuedMessageAt(entry));
  return messages;
}

std::int64_t popEntry(ReceiveQueue& queue) {
  std::optional<ReceiveQueue::Item> item;
  EXPECT_TRUE(queue.pop(0ns, item).ok());
  if (!item) return -1;
  return item->message->id.entry();
}

TEST(ReceiveQueue, MessagesPushedTogetherAreReceivedInTheirOrderAfterEarlierOnes) {
  ReceiveQueue queue;
  queue.push({queuedMessageAt(0), 0});
  auto batch = entries(1, 3);
  queue.pushAll(0, batch);
  EXPECT_EQ(queue.size(), 4u);
  for (std::int64_t entry = 0; entry < 4; ++entry) EXPECT_EQ(popEntry(queue), entry);
  EXPECT_EQ(popEntry(queue), -1);  // nothing left: the zero timeout passes
}

// The queue is a ring that grows when full: order, a give-back at the front and a dropped slot
// hold across the wrap-around and the growth.
TEST(ReceiveQueue, OrderGiveBackAndDropHoldWhenTheRingWrapsAndGrows) {
  ReceiveQueue queue;
  auto first = entries(0, 12);
  queue.pushAll(0, first);
  for (std::int64_t entry = 0; entry < 10; ++entry) EXPECT_EQ(popEntry(queue), entry);
  // 2 left at the end of the ring (16); 30 more wrap around it and outgrow it, half from slot 1.
  for (std::int64_t entry = 12; entry < 42; ++entry) {
    queue.push({queuedMessageAt(entry), static_cast<std::size_t>(entry % 2)});
  }
  std::optional<ReceiveQueue::Item> item;
  ASSERT_TRUE(queue.pop(0ns, item).ok());
  ASSERT_TRUE(item);
  EXPECT_EQ(item->message->id.entry(), 10);
  queue.push({queuedMessageAt(42), 0});  // the ring is full again (32)
  queue.giveBack(std::move(*item));      // so the give-back makes it grow
  queue.drop(1);                         // the odd entries from 13 on
  std::vector<std::int64_t> expected{10, 11};
  for (std::int64_t entry = 12; entry <= 42; entry += 2) expected.push_back(entry);
  std::vector<std::int64_t> got;
  while (queue.size() > 0) got.push_back(popEntry(queue));
  EXPECT_EQ(got, expected);
}

TEST(ReceiveQueue, AsyncReceiversWaitingInLineGetTheFirstMessagesTheRestIsQueued) {
  ReceiveQueue queue;
  std::vector<std::int64_t> got;
  for (int i = 0; i < 2; ++i) {
    queue.popAsync([&](const Status& status, ReceiveQueue::Item item) {
      ASSERT_TRUE(status.ok());
      got.push_back(item.message->id.entry());
    });
  }
  auto batch = entries(10, 3);
  queue.pushAll(2, batch);
  EXPECT_EQ(got, (std::vector<std::int64_t>{10, 11}));
  std::optional<ReceiveQueue::Item> item;
  ASSERT_TRUE(queue.pop(0ns, item).ok());
  ASSERT_TRUE(item);
  EXPECT_EQ(item->message->id.entry(), 12);
  EXPECT_EQ(item->slot, 2u);
}

TEST(ReceiveQueue, ABlockedReceiverIsWokenByMessagesPushedTogether) {
  ReceiveQueue queue;
  std::promise<void> waiting;
  auto received = std::async(std::launch::async, [&] {
    waiting.set_value();
    std::optional<ReceiveQueue::Item> item;
    auto status = queue.pop(std::nullopt, item);  // no timeout: only a push ends it
    return status.ok() && item ? item->message->id.entry() : -1;
  });
  waiting.get_future().wait();
  auto batch = entries(5, 2);
  queue.pushAll(0, batch);
  EXPECT_EQ(received.get(), 5);
  EXPECT_EQ(popEntry(queue), 6);
}

TEST(ReceiveQueue, MessagesPushedTogetherAfterCloseAreDropped) {
  ReceiveQueue queue;
  queue.close(Status(errc::closed, "consumer closed"));
  auto batch = entries(0, 2);
  queue.pushAll(0, batch);
  EXPECT_EQ(queue.size(), 0u);
  std::optional<ReceiveQueue::Item> item;
  EXPECT_EQ(queue.pop(0ns, item).code, errc::closed);
}

TEST(ReceiveQueue, MessagesPushedTogetherCarryTheirSlotsDropCountSoAStaleGiveBackIsDropped) {
  ReceiveQueue queue;
  auto batch = entries(0, 1);
  queue.pushAll(3, batch);
  std::optional<ReceiveQueue::Item> item;
  ASSERT_TRUE(queue.pop(0ns, item).ok());
  ASSERT_TRUE(item);
  queue.drop(3);  // the backend will deliver slot 3's messages again
  queue.giveBack(std::move(*item));
  EXPECT_EQ(queue.size(), 0u);
}

TEST(ReceiveQueue, AReceiveWithATimeoutReturnsNothingWhenNoMessageCame) {
  ReceiveQueue queue;
  std::optional<ReceiveQueue::Item> item;
  EXPECT_TRUE(queue.pop(1ms, item).ok());
  EXPECT_FALSE(item);
}

}  // namespace
}  // namespace reconsume::detail::client
