// BatchContainer: which messages share an entry (room, delay windows, keys), the ids each
// message gets from the entry's receipt, and the entry's bytes as Pulsar's consumers read them.
#include <gtest/gtest.h>

#include "protocol/entry_unpacker.hpp"
#include "pulsar/batch_container.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;

// When the batches of the tests that are not about time open.
const BatchContainer::TimePoint kOpened{};

BatchedMessage message(std::string payload, std::optional<std::uint64_t> deliverAtMs = {},
                       std::optional<std::string> key = {}) {
  OutgoingMessage outgoing;
  outgoing.payload = std::move(payload);
  outgoing.key = std::move(key);
  outgoing.properties["p"] = "v";
  return BatchedMessage(std::move(outgoing), deliverAtMs);
}

// Adds `m` with a completion that does nothing; what add() took.
BatchContainer::Taken addTo(BatchContainer& container, BatchedMessage m,
                            BatchContainer::TimePoint now = kOpened) {
  return container.add(
      std::move(m), [](const Status&, MessageId) {}, [now] { return now; });
}

// Batches of at most two messages, each due 1 ms after it opened.
BatchingOptions twoMessagesWithin1ms() {
  BatchingOptions options;
  options.maxMessages = 2;
  options.maxPublishDelay = 1000us;
  return options;
}

// The one open batch, taken.
OutgoingEntry onlyBatch(BatchContainer& container) {
  auto all = container.takeAll();
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? OutgoingEntry() : std::move(all.front());
}

TEST(BatchContainer, ABatchIsFullAtMaxMessagesOrMaxBytes) {
  BatchingOptions options;
  options.maxMessages = 3;
  BatchContainer byCount(options);
  EXPECT_FALSE(addTo(byCount, message("a")).full);
  EXPECT_FALSE(addTo(byCount, message("b")).full);
  auto full = addTo(byCount, message("c"));
  ASSERT_TRUE(full.full) << "the third fills it: taken at once";
  EXPECT_FALSE(full.closed);
  EXPECT_EQ(full.full->batch.size(), 3u);
  EXPECT_EQ(full.full->dones.size(), 3u);
  EXPECT_TRUE(byCount.empty());

  options.maxMessages = 1000;
  options.maxBytes = 2 * message(std::string(100, 'x')).bytes();
  BatchContainer byBytes(options);
  EXPECT_FALSE(addTo(byBytes, message(std::string(100, 'x'))).full);
  EXPECT_TRUE(byBytes.fits(message(std::string(100, 'x'))));
  EXPECT_FALSE(byBytes.fits(message(std::string(101, 'x')))) << "it would pass maxBytes";
  EXPECT_TRUE(addTo(byBytes, message(std::string(100, 'x'))).full);
}

TEST(BatchContainer, AMessageThatCannotJoinItsBatchTakesItOutAndOpensANewOne) {
  BatchingOptions options;
  options.maxBytes = message(std::string(100, 'x')).bytes() + message("y").bytes();
  BatchContainer container(options);
  const BatchContainer::TimePoint t0{5s};
  addTo(container, message(std::string(100, 'x')), t0);
  auto taken = addTo(container, message(std::string(101, 'x')), t0 + 300us);
  ASSERT_TRUE(taken.closed) << "it would pass maxBytes: the open batch goes out first";
  EXPECT_FALSE(taken.full);
  ASSERT_EQ(taken.closed->batch.size(), 1u);
  EXPECT_EQ(taken.closed->batch[0].payload.size(), 100u);
  EXPECT_EQ(taken.closed->dones.size(), 1u);
  EXPECT_EQ(container.messages(), 1u);
  EXPECT_EQ(container.nextDue(), t0 + 300us + options.maxPublishDelay)
      << "the new batch is due after its own delay";
  auto rest = onlyBatch(container);
  ASSERT_EQ(rest.batch.size(), 1u);
  EXPECT_EQ(rest.batch[0].payload.size(), 101u);
}

TEST(BatchContainer, DelayedMessagesShareAnEntryOnlyWithinTheWindowAndNeverWithUndelayedOnes) {
  BatchingOptions options;
  options.delayedWindow = 10ms;
  BatchContainer container(options);
  addTo(container, message("a", 1'000'005));
  EXPECT_FALSE(container.fits(message("plain"))) << "a delay applies to the whole entry";
  EXPECT_TRUE(container.fits(message("b", 1'000'000)));
  addTo(container, message("b", 1'000'000));
  EXPECT_TRUE(container.fits(message("c", 1'000'010))) << "10 ms after the earliest";
  EXPECT_FALSE(container.fits(message("d", 1'000'011))) << "11 ms after the earliest";
  EXPECT_FALSE(container.fits(message("e", 999'994))) << "11 ms before the latest";
  addTo(container, message("c", 1'000'010));
  EXPECT_EQ(onlyBatch(container).deliverAtMs, 1'000'010u)
      << "the latest: none of them is delivered early";

  BatchContainer plain(options);
  addTo(plain, message("plain"));
  EXPECT_FALSE(plain.fits(message("later", 5)));
  auto taken = addTo(plain, message("later", 5));
  ASSERT_TRUE(taken.closed) << "the undelayed batch goes out ahead of the delayed message";
  EXPECT_FALSE(taken.closed->deliverAtMs);
  EXPECT_EQ(onlyBatch(plain).deliverAtMs, 5u);
}

TEST(BatchContainer, KeyBasedBatchingKeepsOneBatchPerKeyAndTakesThemInOrderOfOpening) {
  BatchingOptions options;
  options.keyBased = true;
  BatchContainer container(options);
  addTo(container, message("k2-a", {}, "k2"));
  addTo(container, message("k1-a", {}, "k1"));
  addTo(container, message("k2-b", {}, "k2"));
  addTo(container, message("none"));
  EXPECT_EQ(container.messages(), 4u);
  EXPECT_EQ(container.keyOf(message("x", {}, "k1")), "k:k1");
  auto all = container.takeAll();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].batch.size(), 2u) << "k2 opened first";
  EXPECT_EQ(all[0].batch[1].payload, "k2-b");
  EXPECT_EQ(all[1].batch[0].payload, "k1-a");
  EXPECT_EQ(all[2].batch[0].payload, "none");
  EXPECT_TRUE(container.empty());
}

TEST(BatchContainer, UnderKeyBasedBatchingAKeysFullBatchGoesOutAheadOfAnOlderOpenOne) {
  BatchingOptions options;
  options.keyBased = true;
  options.maxMessages = 2;
  BatchContainer container(options);
  addTo(container, message("a1", {}, "a"));
  addTo(container, message("b1", {}, "b"));
  auto taken = addTo(container, message("b2", {}, "b"));
  ASSERT_TRUE(taken.full) << "b's batch is full: it goes out now";
  EXPECT_FALSE(taken.closed) << "a's batch is another key's: it stays open";
  EXPECT_EQ(taken.full->batch[0].payload, "b1");
  EXPECT_EQ(container.messages(), 1u) << "a1, sent first, is still open: order holds per key";
  EXPECT_EQ(onlyBatch(container).batch[0].payload, "a1");
}

TEST(BatchContainer, EachMessageOfTheEntryGetsTheEntryIdWithItsBatchIndex) {
  BatchContainer container(BatchingOptions{});
  std::vector<std::pair<Status, MessageId>> results(3);
  for (int i = 0; i < 3; ++i) {
    container.add(
        message("m" + std::to_string(i)),
        [&results, i](const Status& status, MessageId id) {
          results[static_cast<std::size_t>(i)] = {status, id};
        },
        [] { return kOpened; });
  }
  auto entry = onlyBatch(container);
  auto done = BatchContainer::completion(entry, 2);
  EXPECT_TRUE(entry.dones.empty()) << "taken from the entry";
  EXPECT_EQ(entry.batch.size(), 3u) << "the messages stay, for writing again";
  done({}, MessageId(40, 7, 2));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(results[static_cast<std::size_t>(i)].first.ok());
    EXPECT_EQ(results[static_cast<std::size_t>(i)].second, MessageId(40, 7, 2, i, 3));
  }
  done(Status(errc::timeout, "no receipt"), MessageId());
  EXPECT_EQ(results[1].first.code, errc::timeout) << "a failure reaches every message";
}

TEST(BatchContainer, EachBatchIsDueMaxPublishDelayAfterItOpenedAndOnlyDueOnesAreTaken) {
  BatchingOptions options;
  options.keyBased = true;
  options.maxPublishDelay = 1000us;
  BatchContainer container(options);
  EXPECT_FALSE(container.nextDue()) << "nothing open";
  const BatchContainer::TimePoint t0{5s};
  addTo(container, message("k1-a", {}, "k1"), t0);
  addTo(container, message("k2-a", {}, "k2"), t0 + 600us);
  addTo(container, message("k1-b", {}, "k1"), t0 + 900us);  // joins k1's batch, due as it was
  EXPECT_EQ(container.nextDue(), t0 + 1000us);
  EXPECT_TRUE(container.takeDue(t0 + 999us).empty()) << "none is due yet";
  auto due = container.takeDue(t0 + 1000us);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].batch.size(), 2u) << "k1's batch, both of its messages";
  EXPECT_EQ(container.messages(), 1u);
  EXPECT_EQ(container.nextDue(), t0 + 1600us) << "k2's batch opened later and is due later";
  addTo(container, message("k1-c", {}, "k1"), t0 + 1000us);  // a new batch for k1
  auto rest = container.takeDue(t0 + 2000us);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].batch[0].payload, "k2-a") << "the oldest first";
  EXPECT_EQ(rest[1].batch[0].payload, "k1-c");
  EXPECT_TRUE(container.empty());
  EXPECT_FALSE(container.nextDue());
}

TEST(BatchContainer, ABatchOpenedAfterAFullOneWentOutWaitsItsOwnDelay) {
  BatchContainer container(twoMessagesWithin1ms());
  const BatchContainer::TimePoint t0{5s};
  addTo(container, message("a"), t0);
  auto full = addTo(container, message("b"), t0 + 100us);
  ASSERT_TRUE(full.full);
  ASSERT_EQ(full.full->batch.size(), 2u);
  addTo(container, message("c"), t0 + 700us);
  EXPECT_TRUE(container.takeDue(t0 + 1000us).empty())
      << "when the first batch would have been due, the second has waited 0.3 ms of its 1";
  EXPECT_EQ(container.nextDue(), t0 + 1700us);
  EXPECT_TRUE(container.takeDue(t0 + 1699us).empty());
  auto due = container.takeDue(t0 + 1700us);
  ASSERT_EQ(due.size(), 1u);
  ASSERT_EQ(due[0].batch.size(), 1u);
  EXPECT_EQ(due[0].batch[0].payload, "c");
}

TEST(BatchContainer, WithoutKeysEachMessageAfterATakenBatchOpensAFreshOne) {
  // Not key-based, the container finds its one open batch without a lookup: every way a batch
  // leaves it (full, due, taken, closed by a message that cannot join) must leave room for a new
  // one.
  BatchContainer container(twoMessagesWithin1ms());
  const BatchContainer::TimePoint t0{5s};
  addTo(container, message("a"), t0);
  ASSERT_EQ(container.takeDue(t0 + 1000us).size(), 1u);
  EXPECT_TRUE(container.empty());
  addTo(container, message("b"), t0 + 1100us);
  EXPECT_EQ(container.nextDue(), t0 + 2100us) << "b opened a batch of its own";
  auto all = container.takeAll();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].batch[0].payload, "b");
  addTo(container, message("c"), t0 + 2000us);
  auto taken = addTo(container, message("d", 7), t0 + 2000us);
  ASSERT_TRUE(taken.closed) << "a delayed message cannot join an undelayed batch";
  EXPECT_EQ(taken.closed->batch[0].payload, "c");
  EXPECT_TRUE(addTo(container, message("e", 7), t0 + 2000us).full);
  EXPECT_TRUE(container.empty());
  addTo(container, message("f"), t0 + 3000us);
  EXPECT_EQ(container.messages(), 1u);
  EXPECT_EQ(onlyBatch(container).batch[0].payload, "f");
}

TEST(BatchContainer, TheClockIsReadOnlyWhenAMessageOpensABatch) {
  BatchContainer container(twoMessagesWithin1ms());
  int readings = 0;
  auto add = [&](std::string payload) {
    return container.add(
        message(std::move(payload)), [](const Status&, MessageId) {},
        [&readings] {
          ++readings;
          return kOpened;
        });
  };
  add("a");
  EXPECT_EQ(readings, 1) << "a opened the batch";
  EXPECT_TRUE(add("b").full);
  EXPECT_EQ(readings, 1) << "b joined it (and filled it)";
  add("c");
  EXPECT_EQ(readings, 2) << "c opened the next one";
}

TEST(BatchContainer, TheEntryCarriesSequenceIdsAndUnpacksIntoTheMessagesSent) {
  BatchContainer container(BatchingOptions{});
  addTo(container, message("first"));
  addTo(container, message("second"));
  auto entry = onlyBatch(container);
  auto encoded = BatchContainer::buildEntry(
      entry, 17, {.producerName = "p", .publishTimeMs = 5, .compression = proto::LZ4});
  EXPECT_EQ(encoded.metadata.sequence_id(), 17u);
  EXPECT_EQ(encoded.metadata.highest_sequence_id(), 18u);
  EXPECT_EQ(encoded.metadata.num_messages_in_batch(), 2);
  EXPECT_EQ(encoded.metadata.compression(), proto::LZ4);
  proto::CommandMessage command;
  command.mutable_message_id()->set_ledgerid(40);
  command.mutable_message_id()->set_entryid(1);
  protocol::UnpackedEntry unpacked;
  auto status = protocol::unpackEntry(command, encoded.metadata, encoded.payload,
                                      {.topic = "persistent://public/default/t"}, unpacked);
  ASSERT_TRUE(status.ok()) << status.message;
  ASSERT_EQ(unpacked.messages.size(), 2u);
  EXPECT_EQ(unpacked.messages[0].data.payload, "first");
  EXPECT_EQ(unpacked.messages[1].data.payload, "second");
  EXPECT_EQ(unpacked.messages[1].data.properties.at("p"), "v");
}

TEST(BatchContainer, ABatchOfOneGoesOutAsAPlainMessage) {
  BatchingOptions options;
  options.delayedWindow = 10ms;
  BatchContainer container(options);
  addTo(container, message("alone", 123'456, "k"));
  auto entry = onlyBatch(container);
  auto encoded = BatchContainer::buildEntry(entry, 9, {.producerName = "p", .publishTimeMs = 5});
  EXPECT_FALSE(encoded.metadata.has_num_messages_in_batch());
  EXPECT_EQ(encoded.metadata.sequence_id(), 9u);
  EXPECT_EQ(encoded.metadata.deliver_at_time(), 123'456);
  EXPECT_EQ(encoded.metadata.partition_key(), "k");
  ASSERT_EQ(encoded.metadata.properties_size(), 1);
  EXPECT_EQ(encoded.metadata.properties(0).value(), "v");
  EXPECT_EQ(encoded.payload, "alone");
  MessageId got;
  auto done = [&got](const Status&, MessageId id) { got = id; };
  OutgoingEntry one;
  one.batch.push_back(message("x"));
  one.dones.push_back(done);
  BatchContainer::completion(one, -1)({}, MessageId(40, 3));
  EXPECT_EQ(got, MessageId(40, 3)) << "no batch index on a plain entry";
}

}  // namespace
}  // namespace reconsume::detail::pulsar
