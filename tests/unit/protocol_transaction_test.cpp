// The transaction commands a client sends, byte for byte, and the SEND and ACK forms that carry a
// transaction id. The expected bytes are derived by hand in the comments: a field's tag is
// (number << 3 | wire type), written as a varint; wire type 0 is a varint, 2 a length-prefixed
// message or string.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/outgoing.hpp"
#include "protocol/transaction_commands.hpp"
#include "protocol_test_util.hpp"

namespace reconsume::detail::protocol {
namespace {

using namespace std::chrono_literals;
using test::bytes;
using test::hex;

constexpr TxnId kTxn{.mostBits = 1, .leastBits = 42};

proto::BaseCommand decodeOne(const std::string& frame) {
  FrameDecoder decoder;
  decoder.feed(frame);
  auto result = decoder.next();
  EXPECT_TRUE(result.hasFrame()) << (result.hasError() ? result.error().message : "needs more");
  EXPECT_EQ(decoder.buffered(), 0u);
  return result.hasFrame() ? result.frame().command : proto::BaseCommand{};
}

TEST(TxnId, PrintsAsJavasTxnIdAndComparesByBothHalves) {
  EXPECT_EQ(kTxn.toString(), "(1,42)");
  // Java prints its two longs signed.
  EXPECT_EQ((TxnId{UINT64_MAX, 1ull << 63}.toString()), "(-1,-9223372036854775808)");
  EXPECT_EQ(kTxn, (TxnId{1, 42}));
  EXPECT_NE(kTxn, (TxnId{42, 1}));
  EXPECT_NE(kTxn, (TxnId{1, 43}));
}

TEST(TxnCoordinator, PartitionNOfTheAssignTopicServesCoordinatorN) {
  EXPECT_EQ(coordinatorTopic(0),
            "persistent://pulsar/system/transaction_coordinator_assign-partition-0");
  EXPECT_EQ(coordinatorTopic(13),
            "persistent://pulsar/system/transaction_coordinator_assign-partition-13");
  EXPECT_EQ(coordinatorForTxn(TxnId{7, 1000}), 7u);
  static_assert(coordinatorForTxn(TxnId{3, 9}) == 3);
}

// BaseCommand: 08 3e (type 62) | f2 03 (field 62: 498 = f2 03) 04 [08 03 (request 3) 10 02 (tc 2)]
// = 9 bytes; totalSize 13.
TEST(TxnCommands, TcClientConnectFrameByteForByte) {
  EXPECT_EQ(hex(encodeFrame(tcClientConnect(2, 3))),
            hex(bytes("0000000d 00000009 083e f20304 0803 1002")));
}

// BaseCommand: 08 32 (type 50) | 92 03 (field 50: 402) 08 [08 07 (request 7)
// 10 e0 d4 03 (ttl 60000 = 0x60 | 0x54 << 7 | 3 << 14) 18 01 (tc 1)] = 13 bytes; totalSize 17.
// 60000 is the ttl in milliseconds: the field is named seconds, brokers read milliseconds.
TEST(TxnCommands, NewTxnFrameByteForByte) {
  EXPECT_EQ(hex(encodeFrame(newTxn(1, 7, 60s))),
            hex(bytes("00000011 0000000d 0832 920308 0807 10e0d403 1801")));
}

TEST(TxnCommands, NewTxnTtlGoesOutInMillisecondsAndNeverNegative) {
  EXPECT_EQ(newTxn(0, 1, 1500ms).newtxn().txn_ttl_seconds(), 1500u);
  const auto command = newTxn(0, 1, -5ms).newtxn();
  EXPECT_TRUE(command.has_txn_ttl_seconds());
  EXPECT_EQ(command.txn_ttl_seconds(), 0u);
  EXPECT_TRUE(command.has_tc_id());  // written for coordinator 0 too
}

// BaseCommand: 08 38 (type 56) | c2 03 (field 56: 450) 08 [08 09 (request 9)
// 10 2a (least 42) 18 01 (most 1) 20 0x (action)] = 13 bytes; totalSize 17. The two frames differ
// in the last byte only: COMMIT is 0, written all the same.
TEST(TxnCommands, EndTxnCommitAndAbortDifferInTheActionOnly) {
  const std::string commit = encodeFrame(endTxn(kTxn, 9, proto::COMMIT));
  const std::string abort = encodeFrame(endTxn(kTxn, 9, proto::ABORT));
  EXPECT_EQ(hex(commit), hex(bytes("00000011 0000000d 0838 c20308 0809 102a 1801 2000")));
  EXPECT_EQ(hex(abort), hex(bytes("00000011 0000000d 0838 c20308 0809 102a 1801 2001")));
}

// BaseCommand: 08 34 (type 52) | a2 03 (field 52: 418) 0c [08 0a (request 10) 10 2a 18 01
// 22 01 't' 22 01 'u' (partitions, field 4)] = 17 bytes; totalSize 21.
TEST(TxnCommands, AddPartitionToTxnFrameByteForByte) {
  const std::vector<std::string> partitions = {"t", "u"};
  EXPECT_EQ(hex(encodeFrame(addPartitionToTxn(kTxn, 10, partitions))),
            hex(bytes("00000015 00000011 0834 a2030c 080a 102a 1801 220174 220175")));
}

// BaseCommand: 08 36 (type 54) | b2 03 (field 54: 434) 0e [08 0b (request 11) 10 2a 18 01
// 22 06 [0a 01 't' 12 01 's'] (Subscription{topic, subscription}, field 4)] = 19 bytes.
TEST(TxnCommands, AddSubscriptionToTxnFrameByteForByte) {
  const std::vector<TxnSubscription> subscriptions = {{.topic = "t", .subscription = "s"}};
  EXPECT_EQ(hex(encodeFrame(addSubscriptionToTxn(kTxn, 11, subscriptions))),
            hex(bytes("00000017 00000013 0836 b2030e 080b 102a 1801 2206 0a0174 120173")));
}

TEST(TxnCommands, RequestsRoundTripThroughTheFrameDecoder) {
  auto command = decodeOne(encodeFrame(newTxn(4, 21, 90s)));
  ASSERT_EQ(command.type(), proto::BaseCommand::NEW_TXN);
  EXPECT_EQ(command.newtxn().request_id(), 21u);
  EXPECT_EQ(command.newtxn().tc_id(), 4u);
  EXPECT_EQ(command.newtxn().txn_ttl_seconds(), 90'000u);

  const std::vector<TxnSubscription> subscriptions = {
      {"persistent://public/default/a-partition-0", "workers"},
      {"persistent://public/default/b", "audit"}};
  command = decodeOne(encodeFrame(addSubscriptionToTxn(TxnId{4, 77}, 22, subscriptions)));
  ASSERT_EQ(command.type(), proto::BaseCommand::ADD_SUBSCRIPTION_TO_TXN);
  const auto& add = command.addsubscriptiontotxn();
  EXPECT_EQ((TxnId{add.txnid_most_bits(), add.txnid_least_bits()}), (TxnId{4, 77}));
  ASSERT_EQ(add.subscription_size(), 2);
  EXPECT_EQ(add.subscription(1).topic(), "persistent://public/default/b");
  EXPECT_EQ(add.subscription(1).subscription(), "audit");

  command = decodeOne(encodeFrame(endTxn(TxnId{4, 77}, 23, proto::ABORT)));
  ASSERT_EQ(command.type(), proto::BaseCommand::END_TXN);
  EXPECT_EQ(command.endtxn().txn_action(), proto::ABORT);

  command = decodeOne(encodeFrame(tcClientConnect(9, 24)));
  ASSERT_EQ(command.type(), proto::BaseCommand::TC_CLIENT_CONNECT_REQUEST);
  EXPECT_EQ(command.tcclientconnectrequest().tc_id(), 9u);
}

// CommandAck: 08 03 (consumer 3) 10 00 (Individual) 1a 04 [08 0c 10 22] (entry 12:34)
// 30 2a (txnid_least_bits, field 6) 38 01 (txnid_most_bits, field 7) 40 63 (request 99, field 8)
// = 16 bytes; BaseCommand 08 0a | 52 10 [ack] = 20 bytes; totalSize 24.
TEST(TxnAck, CarriesBothHalvesOfTheIdAndTheRequestId) {
  EXPECT_EQ(hex(encodeFrame(ack(3, kTxn, 99, MessageId(12, 34)))),
            hex(bytes("00000018 00000014 080a 5210 0803 1000 1a04080c1022 302a 3801 4063")));
  // The same acknowledgement outside a transaction has neither field.
  EXPECT_EQ(hex(encodeFrame(ack(3, MessageId(12, 34), {}, 99))),
            hex(bytes("00000014 00000010 080a 520c 0803 1000 1a04080c1022 4063")));
}

TEST(TxnAck, EveryFormKeepsWhatTheNonTransactionalOneSays) {
  const std::vector<std::int64_t> words = {0b1011};
  auto command = ack(3, kTxn, 5, MessageId(12, 34, 0, 2, 4), words);
  EXPECT_EQ(command.ack().ack_type(), proto::CommandAck::Individual);
  EXPECT_EQ(command.ack().message_id(0).ack_set(0), 0b1011);
  EXPECT_EQ(command.ack().txnid_most_bits(), 1u);
  EXPECT_EQ(command.ack().txnid_least_bits(), 42u);

  const std::vector<MessageId> ids = {MessageId(1, 1, -1, 0, 3), MessageId(1, 1, -1, 2, 3),
                                      MessageId(1, 2)};
  command = ack(3, kTxn, 6, ids);
  EXPECT_EQ(command.ack().message_id_size(), 2);
  EXPECT_EQ(command.ack().request_id(), 6u);
  EXPECT_EQ(command.ack().txnid_least_bits(), 42u);

  command = ackCumulative(3, kTxn, 7, MessageId(5, 9));
  EXPECT_EQ(command.ack().ack_type(), proto::CommandAck::Cumulative);
  EXPECT_EQ(command.ack().message_id(0).entryid(), 9u);
  EXPECT_EQ(command.ack().request_id(), 7u);
  EXPECT_EQ(command.ack().txnid_most_bits(), 1u);

  EXPECT_FALSE(ackCumulative(3, MessageId(5, 9)).ack().has_txnid_most_bits());
  EXPECT_FALSE(ack(3, ids).ack().has_txnid_least_bits());
}

EncodedMessage hi() {
  return encodeMessage(OutgoingMessage{.payload = "hi"},
                       SendContext{.producerName = "p", .sequenceId = 0, .publishTimeMs = 1000});
}

// SEND of "hi" from producer 1 (as in protocol_frame_encoder_test.cpp) in transaction (1,42):
//   command   08 06 | 32 08 [08 01 10 00 20 2a (least, field 4) 28 01 (most, field 5)]  12 bytes
//   metadata  0a 01 70 | 10 00 | 18 e8 07 | b0 01 2a (least, field 22: tag 176)
//             | b8 01 01 (most, field 23: tag 184)                                         14 bytes
//   checksum  CRC32C of [0000000e][metadata]["hi"], 20 bytes: 0xbb0dc1a4, computed with a
//             bit-at-a-time CRC32C (polynomial 0x82F63B78) outside this code base.
//   totalSize 4 + 12 + 2 + 4 + 4 + 14 + 2 = 42
TEST(TxnSend, CarriesTheIdInTheCommandAndInTheMetadata) {
  const auto message = hi();
  EXPECT_EQ(hex(encodeSend(1, message, kTxn)),
            hex(bytes("0000002a 0000000c 0806 3208 0801 1000 202a 2801"
                      "0e01 bb0dc1a4"
                      "0000000e 0a0170 1000 18e807 b0012a b80101"
                      "6869")));
  // The message itself is left as it was, for a later send outside the transaction.
  EXPECT_FALSE(message.metadata.has_txnid_most_bits());
}

TEST(TxnSend, WithoutATransactionTheFrameIsTheUsualOne) {
  const auto message = hi();
  EXPECT_EQ(encodeSend(1, message, std::nullopt), encodeSend(1, message));
  std::string out = "x";
  appendSend(out, 1, message, kTxn);
  EXPECT_EQ(out, "x" + encodeSend(1, message, kTxn));
}

TEST(TxnSend, SendCommandRepeatsTheMetadatasTransaction) {
  proto::MessageMetadata meta;
  meta.set_sequence_id(10);
  meta.set_txnid_most_bits(2);
  meta.set_txnid_least_bits(3);
  const auto send = detail::protocol::send(4, meta).send();
  EXPECT_EQ(send.txnid_most_bits(), 2u);
  EXPECT_EQ(send.txnid_least_bits(), 3u);

  // Half an id is no transaction: nothing is copied.
  meta.clear_txnid_least_bits();
  EXPECT_FALSE(detail::protocol::send(4, meta).send().has_txnid_most_bits());
}

TEST(TxnSend, DecodesBackToTheSameTransaction) {
  const auto frame = encodeSend(1, hi(), TxnId{UINT64_MAX, 5});
  FrameDecoder decoder;
  decoder.feed(frame);
  auto result = decoder.next();
  ASSERT_TRUE(result.hasFrame());
  const auto& decoded = result.frame();
  EXPECT_EQ(decoded.command.send().txnid_most_bits(), UINT64_MAX);
  EXPECT_EQ(decoded.command.send().txnid_least_bits(), 5u);
  ASSERT_TRUE(decoded.metadata.has_value());
  EXPECT_EQ(decoded.metadata->txnid_most_bits(), UINT64_MAX);
  EXPECT_EQ(decoded.payload, "hi");
}

}  // namespace
}  // namespace reconsume::detail::protocol
