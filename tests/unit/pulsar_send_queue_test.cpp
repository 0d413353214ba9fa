#include <gtest/gtest.h>

#include "protocol/frame_decoder.hpp"
#include "protocol/outgoing.hpp"
#include "pulsar/send_queue.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using TimePoint = SendQueue::TimePoint;
const TimePoint kQueueStart = TimePoint() + 1h;

detail::protocol::EncodedMessage message(std::string payload) {
  OutgoingMessage outgoing;
  outgoing.payload = std::move(payload);
  return detail::protocol::encodeMessage(outgoing, {.producerName = "p", .publishTimeMs = 1000});
}

// The real SEND frame for producer 9, as the producer writes it.
detail::Bytes encode(OutgoingEntry& entry, std::uint64_t sequenceId) {
  entry.single.metadata.set_sequence_id(sequenceId);
  return detail::Bytes::adopt(detail::protocol::encodeSend(9, entry.single));
}

struct Results {
  std::vector<std::pair<int, Status>> order;  // (message, outcome) in completion order
  Callback<MessageId> callback(int index) {
    return [this, index](const Status& status, MessageId) { order.push_back({index, status}); };
  }
};

TEST(PulsarSendQueue, SequenceIdsGoIntoTheFramesAndReceiptsCompleteInOrder) {
  SendQueue queue(10, true);
  Results results;
  queue.setNextSequenceId(5);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(queue.admit(message("m" + std::to_string(i)), results.callback(i), kQueueStart + 1s,
                          encode),
              SendQueue::Admitted::pending);
  }
  ASSERT_EQ(queue.pending().size(), 3u);
  // The frame is a SEND of producer 9 with the sequence id in command and metadata.
  detail::protocol::FrameDecoder decoder;
  decoder.feed(queue.pending()[1].frame.view());
  auto frame = decoder.next();
  ASSERT_TRUE(frame.hasFrame());
  EXPECT_EQ(frame.frame().command.send().producer_id(), 9u);
  EXPECT_EQ(frame.frame().command.send().sequence_id(), 6u);
  EXPECT_EQ(frame.frame().metadata->sequence_id(), 6u);
  EXPECT_EQ(frame.frame().payload, "m1");

  bool outOfOrder = false;
  EXPECT_FALSE(queue.receipt(4, outOfOrder)) << "a duplicate receipt of an older message";
  EXPECT_FALSE(outOfOrder);
  auto first = queue.receipt(5, outOfOrder);
  ASSERT_TRUE(first);
  first->done({}, MessageId());
  EXPECT_FALSE(queue.receipt(7, outOfOrder)) << "6 is still the oldest";
  EXPECT_TRUE(outOfOrder);
  EXPECT_EQ(queue.pending().front().sequenceId, 6u);
  EXPECT_EQ(results.order.size(), 1u);
}

TEST(PulsarSendQueue, AFullQueueMakesSendsWaitOrFailWhenNotBlocking) {
  Results results;
  SendQueue failing(2, false);
  failing.admit(message("a"), results.callback(0), kQueueStart + 1s, encode);
  failing.admit(message("b"), results.callback(1), kQueueStart + 1s, encode);
  EXPECT_EQ(failing.admit(message("c"), results.callback(2), kQueueStart + 1s, encode),
            SendQueue::Admitted::busy);

  SendQueue blocking(2, true);
  blocking.admit(message("a"), results.callback(10), kQueueStart + 1s, encode);
  blocking.admit(message("b"), results.callback(11), kQueueStart + 1s, encode);
  EXPECT_EQ(blocking.admit(message("c"), results.callback(12), kQueueStart + 1s, encode),
            SendQueue::Admitted::waiting);
  EXPECT_EQ(blocking.refill(encode), 0u) << "no room yet";
  bool outOfOrder = false;
  blocking.receipt(0, outOfOrder)->done({}, MessageId());
  EXPECT_EQ(blocking.refill(encode), 1u);
  EXPECT_EQ(blocking.pending().back().sequenceId, 2u) << "the waiting message gets the next id";
  EXPECT_EQ(blocking.waitingCount(), 0u);
}

TEST(PulsarSendQueue, WaitingMessagesKeepTheirPlaceAheadOfNewOnes) {
  Results results;
  SendQueue queue(1, true);
  queue.admit(message("a"), results.callback(0), kQueueStart + 1s, encode);
  queue.admit(message("b"), results.callback(1), kQueueStart + 1s, encode);
  bool outOfOrder = false;
  queue.receipt(0, outOfOrder)->done({}, MessageId());
  // Room now, but "b" waits: "c" must not overtake it.
  EXPECT_EQ(queue.admit(message("c"), results.callback(2), kQueueStart + 1s, encode),
            SendQueue::Admitted::waiting);
  EXPECT_EQ(queue.refill(encode), 1u);
  EXPECT_EQ(queue.pending().back().frame.view().back(), 'b');
}

TEST(PulsarSendQueue, TimeoutsTakeTheOldestFirstAndTakeAllTheRest) {
  Results results;
  SendQueue queue(2, true);
  queue.admit(message("a"), results.callback(0), kQueueStart + 100ms, encode);
  queue.admit(message("b"), results.callback(1), kQueueStart + 200ms, encode);
  queue.admit(message("c"), results.callback(2), kQueueStart + 150ms, encode);  // waiting
  EXPECT_EQ(queue.nextDeadline(), kQueueStart + 100ms);
  auto expired = queue.expire(kQueueStart + 160ms);
  ASSERT_EQ(expired.size(), 2u);  // "a" and the waiting "c"
  for (auto& done : expired) done(Status(errc::timeout, "late"), MessageId());
  EXPECT_EQ(results.order[0].first, 0);
  EXPECT_EQ(results.order[1].first, 2);
  EXPECT_EQ(queue.pending().size(), 1u);
  for (auto& done : queue.takeAll()) done(Status(errc::closed, "closed"), MessageId());
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(results.order.back().first, 1);
  EXPECT_EQ(results.order.back().second.code, errc::closed);
  EXPECT_FALSE(queue.nextDeadline());
}

TEST(PulsarSendQueue, NoSendTimeoutMeansNoDeadline) {
  Results results;
  SendQueue queue(2, true);
  queue.admit(message("a"), results.callback(0), TimePoint::max(), encode);
  EXPECT_FALSE(queue.nextDeadline());
  EXPECT_TRUE(queue.expire(kQueueStart + 1000h).empty());
}

// After a broken connection, the written messages of transactions are taken out (to fail: the
// broker may have stored them); the others, and a transaction's message not yet written, stay
// to be written again, in order.
TEST(PulsarSendQueue, WrittenMessagesOfTransactionsAreTakenOutWhenTheConnectionBreaks) {
  SendQueue queue(10, true);
  Results results;
  auto inTransaction = [](std::string payload) {
    auto encoded = message(std::move(payload));
    encoded.metadata.set_txnid_most_bits(0);
    encoded.metadata.set_txnid_least_bits(7);
    return encoded;
  };
  queue.admit(inTransaction("kQueueStart"), results.callback(0), kQueueStart + 1s, encode);
  queue.admit(message("p1"), results.callback(1), kQueueStart + 1s, encode);
  queue.markWritten(2);
  queue.admit(inTransaction("t2"), results.callback(2), kQueueStart + 1s,
              encode);  // not written yet

  auto taken = queue.takeWrittenTransactional();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].sequenceId, 0u);
  ASSERT_EQ(queue.pending().size(), 2u);
  EXPECT_EQ(queue.pending()[0].sequenceId, 1u);
  EXPECT_EQ(queue.pending()[1].sequenceId, 2u);
  EXPECT_FALSE(queue.pending()[0].written) << "to be written on the next connection";

  // Written on the next connection and lost again: now t2 goes too.
  queue.markWritten(2);
  taken = queue.takeWrittenTransactional();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].sequenceId, 2u);
  bool outOfOrder = false;
  EXPECT_TRUE(queue.receipt(1, outOfOrder)) << "the plain message is confirmed as usual";

  // A full queue: the room a failed message leaves goes to the one waiting (the producer refills
  // after taking them out, as no receipt will come for them).
  SendQueue full(1, true);
  full.admit(inTransaction("t3"), results.callback(3), kQueueStart + 1s, encode);
  EXPECT_EQ(full.admit(message("p4"), results.callback(4), kQueueStart + 1s, encode),
            SendQueue::Admitted::waiting);
  full.markWritten(1);
  EXPECT_EQ(full.takeWrittenTransactional().size(), 1u);
  EXPECT_EQ(full.refill(encode), 1u);
  ASSERT_EQ(full.pending().size(), 1u);
  EXPECT_EQ(full.pending()[0].sequenceId, 1u);
  EXPECT_FALSE(full.pending()[0].written);
}

}  // namespace
}  // namespace reconsume::detail::pulsar
