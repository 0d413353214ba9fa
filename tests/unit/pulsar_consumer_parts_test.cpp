// The consumer's pure parts: flow permits, a reader's position, batch acknowledgements.
#include <gtest/gtest.h>

#include "pulsar/batch_acks.hpp"
#include "pulsar/flow_permits.hpp"
#include "pulsar/reader_position.hpp"

namespace reconsume::detail::pulsar {
namespace {

TEST(PulsarFlowPermits, TheBrokerIsToppedUpToTheQueueSize) {
  FlowPermits permits(10);
  EXPECT_EQ(permits.resubscribed(false), 10u);
  permits.received(6);  // six messages are in the sink's queue
  EXPECT_EQ(permits.outstanding(), 4u);
  permits.granted(3);  // the application took three
  EXPECT_EQ(permits.outstanding(), 7u);
  // The sink dropped the three still queued (and the application's three were returned): the
  // broker must hold 10 again.
  EXPECT_EQ(permits.reset(), 3u);
  EXPECT_EQ(permits.outstanding(), 10u);
  EXPECT_EQ(permits.reset(), 0u) << "never above the queue size";
}

// A batch entry of 30 messages sent on the last of 10 permits: the broker holds -20. After the
// sink dropped what it held, granting only 10 would leave it at -10 — sending nothing, and
// nothing left to return permits: the consumer would stall for good.
TEST(PulsarFlowPermits, AResetMakesUpForWhatABatchEntryOverdrew) {
  FlowPermits permits(10);
  permits.resubscribed(false);
  permits.received(30);
  EXPECT_EQ(permits.outstanding(), 0u);
  EXPECT_EQ(permits.reset(), 30u);
  EXPECT_EQ(permits.outstanding(), 10u);
}

TEST(PulsarFlowPermits, AReaderResumingGrantsWhatTheBrokerHeld) {
  FlowPermits permits(10);
  permits.resubscribed(false);
  permits.received(8);
  permits.granted(5);
  EXPECT_EQ(permits.outstanding(), 7u);
  EXPECT_EQ(permits.resubscribed(true), 7u);
  EXPECT_EQ(permits.resubscribed(false), 10u);
}

TEST(PulsarReaderPosition, ExclusiveAndInclusiveStarts) {
  MessageId start(7, 3);
  ReaderPosition exclusive(start, false);
  EXPECT_FALSE(exclusive.accept(MessageId(7, 2)));
  EXPECT_FALSE(exclusive.accept(MessageId(7, 3)));
  EXPECT_TRUE(exclusive.accept(MessageId(7, 4)));

  ReaderPosition inclusive(start, true);
  EXPECT_FALSE(inclusive.accept(MessageId(7, 2)));
  EXPECT_TRUE(inclusive.accept(MessageId(7, 3)));
}

TEST(PulsarReaderPosition, ABatchEntryRedeliveredFromItsStartIsCutAtTheStartIndex) {
  // The broker restarts at the entry; indexes 0..2 were before the start.
  ReaderPosition position(MessageId(7, 3, -1, 2, 5), false);
  for (int index = 0; index <= 2; ++index) {
    EXPECT_FALSE(position.accept(MessageId(7, 3, -1, index, 5))) << index;
  }
  EXPECT_TRUE(position.accept(MessageId(7, 3, -1, 3, 5)));
}

// An id without a batch index names the whole entry (the Go form of an origin id, MessageId(l, e),
// a cursor position): a start after it is after every message of the entry, as the Java client's
// reader starts; an inclusive start takes the whole entry.
TEST(PulsarReaderPosition, AStartAfterAnEntryLevelIdSkipsItsWholeBatch) {
  ReaderPosition exclusive(MessageId(7, 3), false);
  for (int index = 0; index < 4; ++index) {
    EXPECT_FALSE(exclusive.accept(MessageId(7, 3, -1, index, 4))) << index;
  }
  EXPECT_TRUE(exclusive.accept(MessageId(7, 4)));

  ReaderPosition inclusive(MessageId(7, 3), true);
  EXPECT_TRUE(inclusive.accept(MessageId(7, 3, -1, 0, 4)));
  EXPECT_TRUE(inclusive.accept(MessageId(7, 3, -1, 1, 4)));
}

TEST(PulsarReaderPosition, AfterAReconnectionNothingHandedOnComesTwice) {
  ReaderPosition position(MessageId::earliest(), false);
  EXPECT_TRUE(position.accept(MessageId(1, 0)));
  EXPECT_TRUE(position.accept(MessageId(1, 1)));
  EXPECT_EQ(position.resumeFrom(), MessageId(1, 1));
  EXPECT_FALSE(position.accept(MessageId(1, 0)));
  EXPECT_FALSE(position.accept(MessageId(1, 1)));
  EXPECT_TRUE(position.accept(MessageId(1, 2)));
  // The partition is the consumer's own; it does not change the order.
  EXPECT_FALSE(position.accept(MessageId(1, 2, 4)));
}

TEST(PulsarReaderPosition, SeekRestartsAfterTheId) {
  ReaderPosition position(MessageId(1, 5), false);
  EXPECT_TRUE(position.accept(MessageId(1, 6)));
  position.seek(MessageId(1, 0));
  EXPECT_FALSE(position.accept(MessageId(1, 0)));
  EXPECT_TRUE(position.accept(MessageId(1, 1)));
  position.seek(MessageId::earliest());
  EXPECT_EQ(position.resumeFrom(), MessageId::earliest());
  EXPECT_TRUE(position.accept(MessageId(0, 0)));
}

TEST(PulsarBatchAcks, OnlyTheLastMessageOfAnEntrySendsTheAck) {
  BatchAcks acks;
  auto tracker = acks.trackerFor({3, 9}, std::make_shared<detail::protocol::BatchAckTracker>(3));
  EXPECT_EQ(acks.acknowledge({3, 9}, tracker, 1), BatchAcks::Outcome::recorded);
  EXPECT_EQ(acks.acknowledge({3, 9}, tracker, 1), BatchAcks::Outcome::already);
  EXPECT_EQ(acks.acknowledge({3, 9}, tracker, 0), BatchAcks::Outcome::recorded);
  EXPECT_EQ(acks.partialEntries(), 1u);
  EXPECT_EQ(acks.acknowledge({3, 9}, tracker, 2), BatchAcks::Outcome::complete);
  EXPECT_EQ(acks.partialEntries(), 0u);
}

TEST(PulsarBatchAcks, ARedeliveredEntryKeepsWhatWasAcknowledged) {
  BatchAcks acks;
  auto first = acks.trackerFor({3, 9}, std::make_shared<detail::protocol::BatchAckTracker>(4));
  acks.acknowledge({3, 9}, first, 0);
  acks.acknowledge({3, 9}, first, 2);
  first.reset();  // the application dropped its messages; the record stays
  auto again = acks.trackerFor({3, 9}, std::make_shared<detail::protocol::BatchAckTracker>(4));
  EXPECT_TRUE(again->isAcknowledged(0));
  EXPECT_FALSE(again->isAcknowledged(1));
  EXPECT_TRUE(again->isAcknowledged(2));
  EXPECT_EQ(acks.acknowledge({3, 9}, again, 1), BatchAcks::Outcome::recorded);
  EXPECT_EQ(acks.acknowledge({3, 9}, again, 3), BatchAcks::Outcome::complete);
}

TEST(PulsarBatchAcks, MessagesOfAnEntryShareOneTrackerWhileAlive) {
  BatchAcks acks;
  auto tracker = acks.trackerFor({1, 1}, std::make_shared<detail::protocol::BatchAckTracker>(2));
  auto same = acks.trackerFor({1, 1}, std::make_shared<detail::protocol::BatchAckTracker>(2));
  EXPECT_EQ(tracker, same);
  // Indexes another client acknowledged (batch-index acknowledgement) count here too.
  std::vector<std::int64_t> ackSet{0b01};  // index 0 pending, index 1 acknowledged
  auto merged =
      acks.trackerFor({1, 1}, std::make_shared<detail::protocol::BatchAckTracker>(2, ackSet));
  EXPECT_EQ(merged, tracker);
  EXPECT_TRUE(tracker->isAcknowledged(1));
  EXPECT_EQ(acks.acknowledge({1, 1}, tracker, 0), BatchAcks::Outcome::complete);
}

// An index the broker reported acknowledged (inside a transaction, say) and later delivers as
// open again (the transaction aborted) is handed out again; this consumer's own stay recorded.
TEST(PulsarBatchAcks, AnIndexTheBrokerDeliversOpenAgainIsNoLongerAcknowledged) {
  BatchAcks acks;
  std::vector<std::int64_t> oneElsewhere{0b101};  // index 1 acknowledged elsewhere
  auto tracker =
      acks.trackerFor({2, 7}, std::make_shared<detail::protocol::BatchAckTracker>(3, oneElsewhere));
  EXPECT_EQ(acks.acknowledge({2, 7}, tracker, 0), BatchAcks::Outcome::recorded);
  auto again = acks.trackerFor({2, 7}, std::make_shared<detail::protocol::BatchAckTracker>(3));
  EXPECT_EQ(again, tracker);
  EXPECT_TRUE(again->isAcknowledgedHere(0));
  EXPECT_FALSE(again->isAcknowledged(1));
  EXPECT_FALSE(again->isAcknowledged(2));
  EXPECT_EQ(acks.acknowledge({2, 7}, again, 2), BatchAcks::Outcome::recorded);
  EXPECT_EQ(acks.acknowledge({2, 7}, again, 1), BatchAcks::Outcome::complete);
  EXPECT_EQ(again->acknowledgedElsewhere(), 0);
}

}  // namespace
}  // namespace reconsume::detail::pulsar
