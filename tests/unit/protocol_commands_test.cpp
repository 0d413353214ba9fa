#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "protocol/commands.hpp"
#include "protocol/message_id.hpp"
#include "protocol/outgoing.hpp"

namespace reconsume::detail::protocol {
namespace {

using namespace std::chrono_literals;

std::vector<std::int64_t> ackSetOf(const proto::MessageIdData& id) {
  return {id.ack_set().begin(), id.ack_set().end()};
}

TEST(Commands, ConnectAnnouncesVersionsAndFeatures) {
  const auto command = connect(ConnectRequest{});
  ASSERT_EQ(command.type(), proto::BaseCommand::CONNECT);
  const auto& connect = command.connect();
  EXPECT_EQ(connect.client_version(), "reconsume 0.1");
  EXPECT_EQ(connect.protocol_version(), 21);
  EXPECT_FALSE(connect.has_auth_method_name());
  EXPECT_FALSE(connect.has_auth_data());
  EXPECT_TRUE(connect.feature_flags().supports_auth_refresh());
  EXPECT_TRUE(connect.feature_flags().supports_broker_entry_metadata());
  EXPECT_FALSE(connect.feature_flags().supports_partial_producer());
}

TEST(Commands, ConnectWithTokenUsesTheTokenAuthMethod) {
  auto request = ConnectRequest::withToken("eyJhbGciOi.secret");
  request.proxyToBrokerUrl = "broker-2:6650";
  const auto connect = detail::protocol::connect(request).connect();
  EXPECT_EQ(connect.auth_method_name(), "token");
  EXPECT_EQ(connect.auth_data(), "eyJhbGciOi.secret");
  EXPECT_EQ(connect.proxy_to_broker_url(), "broker-2:6650");
}

TEST(Commands, AuthResponseCarriesTheCredentialsAgain) {
  const auto command = authResponse("token", "fresh-token");
  ASSERT_EQ(command.type(), proto::BaseCommand::AUTH_RESPONSE);
  EXPECT_EQ(command.authresponse().response().auth_method_name(), "token");
  EXPECT_EQ(command.authresponse().response().auth_data(), "fresh-token");
  EXPECT_EQ(command.authresponse().protocol_version(), kProtocolVersion);
}

TEST(Commands, LookupAndMetadata) {
  auto command = lookup("persistent://public/default/orders", 9, true, "internal");
  ASSERT_EQ(command.type(), proto::BaseCommand::LOOKUP);
  EXPECT_EQ(command.lookuptopic().topic(), "persistent://public/default/orders");
  EXPECT_EQ(command.lookuptopic().request_id(), 9u);
  EXPECT_TRUE(command.lookuptopic().authoritative());
  EXPECT_EQ(command.lookuptopic().advertised_listener_name(), "internal");

  command = partitionedMetadata("persistent://public/default/orders", 10);
  ASSERT_EQ(command.type(), proto::BaseCommand::PARTITIONED_METADATA);
  EXPECT_EQ(command.partitionmetadata().request_id(), 10u);

  command = getTopicsOfNamespace(11, "public/default", proto::CommandGetTopicsOfNamespace::ALL);
  EXPECT_EQ(command.gettopicsofnamespace().namespace_(), "public/default");
  EXPECT_EQ(command.gettopicsofnamespace().mode(), proto::CommandGetTopicsOfNamespace::ALL);
}

TEST(Commands, ProducerSaysWhetherTheNameIsTheUsersOwn) {
  ProducerRequest request{.topic = "persistent://public/default/t-DLQ",
                          .producerId = 4,
                          .requestId = 12,
                          .epoch = 2,
                          .initialSubscriptionName = "reconsume-dlq",
                          .metadata = {{"app", "billing"}}};
  auto command = producer(request).producer();
  EXPECT_FALSE(command.has_producer_name());
  EXPECT_FALSE(command.user_provided_producer_name());
  EXPECT_EQ(command.epoch(), 2u);
  EXPECT_EQ(command.initial_subscription_name(), "reconsume-dlq");
  EXPECT_EQ(command.producer_access_mode(), proto::Shared);
  ASSERT_EQ(command.metadata_size(), 1);
  EXPECT_EQ(command.metadata(0).key(), "app");

  request.producerName = "retry-producer";
  command = producer(request).producer();
  EXPECT_EQ(command.producer_name(), "retry-producer");
  EXPECT_TRUE(command.user_provided_producer_name());

  // A reconnection repeats the name the broker generated, without claiming it.
  request.producerName = "standalone-0-42";
  request.nameFromBroker = true;
  command = producer(request).producer();
  EXPECT_EQ(command.producer_name(), "standalone-0-42");
  EXPECT_FALSE(command.user_provided_producer_name());
}

TEST(Commands, SubscribeMapsTypesPositionsAndReaderOptions) {
  SubscribeRequest request{.topic = "persistent://public/default/t-partition-1",
                           .subscription = "workers",
                           .type = SubscriptionType::keyShared,
                           .consumerId = 3,
                           .requestId = 13,
                           .consumerName = "c-1",
                           .initialPosition = InitialPosition::earliest};
  auto subscribe = detail::protocol::subscribe(request).subscribe();
  EXPECT_EQ(subscribe.subtype(), proto::CommandSubscribe::Key_Shared);
  EXPECT_EQ(subscribe.initialposition(), proto::CommandSubscribe::Earliest);
  EXPECT_TRUE(subscribe.durable());
  ASSERT_TRUE(subscribe.has_keysharedmeta());
  EXPECT_EQ(subscribe.keysharedmeta().keysharedmode(), proto::AUTO_SPLIT);
  EXPECT_FALSE(subscribe.has_start_message_id());

  request.type = SubscriptionType::failover;
  request.durable = false;
  request.startMessageId = MessageId(7, 8, 1);
  subscribe = detail::protocol::subscribe(request).subscribe();
  EXPECT_EQ(subscribe.subtype(), proto::CommandSubscribe::Failover);
  EXPECT_FALSE(subscribe.durable());
  EXPECT_FALSE(subscribe.has_keysharedmeta());
  EXPECT_EQ(subscribe.start_message_id().ledgerid(), 7u);
  EXPECT_EQ(subscribe.start_message_id().entryid(), 8u);
  EXPECT_EQ(subscribe.start_message_id().partition(), 1);

  request.type = SubscriptionType::exclusive;
  EXPECT_EQ(detail::protocol::subscribe(request).subscribe().subtype(),
            proto::CommandSubscribe::Exclusive);
  request.type = SubscriptionType::shared;
  EXPECT_EQ(detail::protocol::subscribe(request).subscribe().subtype(),
            proto::CommandSubscribe::Shared);
}

TEST(Commands, EarliestGoesOutAsTheJavaClientSendsIt) {
  const auto data = toMessageIdData(MessageId::earliest());
  EXPECT_EQ(data.ledgerid(), UINT64_MAX);
  EXPECT_EQ(data.entryid(), UINT64_MAX);
  EXPECT_EQ(toMessageId(data), MessageId::earliest());
}

TEST(Commands, MessageIdsRoundTrip) {
  const MessageId id(12, 34, 2, 5, 10);
  const auto data = toMessageIdData(id);
  EXPECT_EQ(data.batch_index(), 5);
  EXPECT_EQ(data.batch_size(), 10);
  const MessageId back = toMessageId(data);
  EXPECT_EQ(back, id);
  EXPECT_EQ(back.batchSize(), 10);
  EXPECT_EQ(toMessageId(data, 7).partition(), 7);
}

TEST(Commands, AckNamesTheEntryAndCarriesAnAckSet) {
  const std::vector<std::int64_t> words = {0b1011};
  auto command = ack(3, MessageId(12, 34, 0, 2, 4), words, 99);
  ASSERT_EQ(command.type(), proto::BaseCommand::ACK);
  const auto& ack = command.ack();
  EXPECT_EQ(ack.ack_type(), proto::CommandAck::Individual);
  EXPECT_EQ(ack.request_id(), 99u);
  ASSERT_EQ(ack.message_id_size(), 1);
  EXPECT_EQ(ack.message_id(0).ledgerid(), 12u);
  EXPECT_EQ(ack.message_id(0).entryid(), 34u);
  EXPECT_FALSE(ack.message_id(0).has_batch_index());
  EXPECT_EQ(ackSetOf(ack.message_id(0)), words);

  command = detail::protocol::ack(3, MessageId(12, 34));
  EXPECT_FALSE(command.ack().has_request_id());
  EXPECT_EQ(command.ack().message_id(0).ack_set_size(), 0);
}

TEST(Commands, AckOfSeveralIdsNamesEachEntryOnce) {
  const std::vector<MessageId> ids = {MessageId(1, 1, -1, 0, 3), MessageId(1, 1, -1, 2, 3),
                                      MessageId(1, 2), MessageId(2, 0)};
  const auto command = ack(3, ids);
  ASSERT_EQ(command.ack().message_id_size(), 3);
  EXPECT_EQ(command.ack().message_id(1).entryid(), 2u);
  EXPECT_EQ(command.ack().message_id(2).ledgerid(), 2u);
}

TEST(Commands, BatchIndexAcknowledgementsOfOneEntryMergeIntoOne) {
  // Bit i stands for index i, set while it is not acknowledged. Entry 1:1 of five messages: index
  // 0 acknowledged, then (alone) index 3; entry 1:2 by an index, then whole; entry 1:3 whole.
  const std::vector<MessageId> ids = {MessageId(1, 1, -1, 0, 5), MessageId(1, 2, -1, 1, 2),
                                      MessageId(1, 1, -1, 3, 5), MessageId(1, 2), MessageId(1, 3)};
  const std::vector<std::vector<std::int64_t>> ackSets = {{0b11110}, {0b01}, {0b10111}, {}, {}};
  const auto command = ack(3, ids, ackSets, 7);
  const auto& ack = command.ack();
  ASSERT_EQ(ack.message_id_size(), 3);
  EXPECT_EQ(ack.message_id(0).entryid(), 1u);
  EXPECT_EQ(ackSetOf(ack.message_id(0)), std::vector<std::int64_t>{0b10110})
      << "an index acknowledged in either is acknowledged";
  EXPECT_EQ(ack.message_id(0).batch_size(), 5);
  EXPECT_EQ(ack.message_id(1).entryid(), 2u);
  EXPECT_EQ(ack.message_id(1).ack_set_size(), 0) << "the whole entry wins";
  EXPECT_FALSE(ack.message_id(1).has_batch_size());
  EXPECT_EQ(ack.message_id(2).ack_set_size(), 0);
  EXPECT_EQ(ack.request_id(), 7u);
}

TEST(Commands, CumulativeAckAndDiscard) {
  auto command = ackCumulative(3, MessageId(5, 9));
  EXPECT_EQ(command.ack().ack_type(), proto::CommandAck::Cumulative);
  EXPECT_EQ(command.ack().message_id(0).entryid(), 9u);

  command = discardCorrupt(3, MessageId(5, 10), proto::CommandAck::ChecksumMismatch);
  EXPECT_EQ(command.ack().ack_type(), proto::CommandAck::Individual);
  EXPECT_EQ(command.ack().validation_error(), proto::CommandAck::ChecksumMismatch);
}

TEST(Commands, RedeliverCollapsesBatchIndexesToTheirEntry) {
  const std::vector<MessageId> ids = {MessageId(1, 1, -1, 0, 3), MessageId(1, 1, -1, 1, 3),
                                      MessageId(1, 4)};
  auto command = redeliver(3, ids, 2);
  ASSERT_EQ(command.type(), proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  const auto& redeliver = command.redeliverunacknowledgedmessages();
  ASSERT_EQ(redeliver.message_ids_size(), 2);
  EXPECT_EQ(redeliver.message_ids(0).entryid(), 1u);
  EXPECT_EQ(redeliver.message_ids(1).entryid(), 4u);
  EXPECT_EQ(redeliver.consumer_epoch(), 2u);

  EXPECT_EQ(detail::protocol::redeliver(3).redeliverunacknowledgedmessages().message_ids_size(), 0);
}

TEST(Commands, SeekToABatchedMessageMarksTheEarlierIndexesAcknowledged) {
  auto seek = detail::protocol::seek(3, 14, MessageId(12, 34, -1, 2, 5)).seek();
  EXPECT_EQ(seek.message_id().entryid(), 34u);
  EXPECT_EQ(ackSetOf(seek.message_id()), std::vector<std::int64_t>{0b11100});

  seek = detail::protocol::seek(3, 14, MessageId(12, 34)).seek();
  EXPECT_EQ(seek.message_id().ack_set_size(), 0);

  seek = seekToTime(3, 15, 1'700'000'000'000).seek();
  EXPECT_FALSE(seek.has_message_id());
  EXPECT_EQ(seek.message_publish_time(), 1'700'000'000'000u);
}

TEST(Commands, ConsumerLifecycle) {
  EXPECT_EQ(flow(3, 500).flow().messagepermits(), 500u);
  EXPECT_EQ(getLastMessageId(3, 16).getlastmessageid().request_id(), 16u);
  EXPECT_TRUE(unsubscribe(3, 17, true).unsubscribe().force());
  EXPECT_FALSE(unsubscribe(3, 17).unsubscribe().has_force());
  EXPECT_EQ(closeConsumer(3, 18).close_consumer().consumer_id(), 3u);
  EXPECT_EQ(closeProducer(4, 19).close_producer().producer_id(), 4u);
}

TEST(Outgoing, MetadataCarriesEverythingTheMessageSays) {
  OutgoingMessage message;
  message.payload = "body";
  message.key = "a2V5";
  message.keyIsBase64 = true;
  message.orderingKey = "order-1";
  message.properties = {{"RECONSUMETIMES", "3"}, {"REAL_TOPIC", "persistent://p/n/t"}};
  message.eventTime = std::chrono::system_clock::time_point(1'600'000'000'000ms);
  message.deliverAfter = 5s;
  const SendContext context{.producerName = "retry-p", .sequenceId = 41, .publishTimeMs = 1000};
  const auto encoded = encodeMessage(message, context);
  const auto& meta = encoded.metadata;
  EXPECT_EQ(meta.producer_name(), "retry-p");
  EXPECT_EQ(meta.sequence_id(), 41u);
  EXPECT_EQ(meta.publish_time(), 1000u);
  EXPECT_EQ(meta.partition_key(), "a2V5");
  EXPECT_TRUE(meta.partition_key_b64_encoded());
  EXPECT_EQ(meta.ordering_key(), "order-1");
  EXPECT_EQ(meta.event_time(), 1'600'000'000'000u);
  EXPECT_EQ(meta.deliver_at_time(), 6000);
  ASSERT_EQ(meta.properties_size(), 2);
  EXPECT_EQ(meta.properties(0).key(), "REAL_TOPIC");
  EXPECT_EQ(meta.properties(1).value(), "3");
  EXPECT_FALSE(meta.has_compression());
  EXPECT_FALSE(meta.has_num_messages_in_batch());
  EXPECT_EQ(encoded.payload, "body");

  message.deliverAt = std::chrono::system_clock::time_point(1'700'000'000'000ms);
  EXPECT_EQ(encodeMessage(message, context).metadata.deliver_at_time(), 1'700'000'000'000);

  const auto plain = encodeMessage(OutgoingMessage{.payload = "x"}, context).metadata;
  EXPECT_FALSE(plain.has_partition_key());
  EXPECT_FALSE(plain.has_ordering_key());
  EXPECT_FALSE(plain.has_event_time());
  EXPECT_FALSE(plain.has_deliver_at_time());
}

TEST(Outgoing, CompressesAndRecordsTheUncompressedSize) {
  const OutgoingMessage message{.payload = std::string(1000, 'z')};
  const auto encoded =
      encodeMessage(message, SendContext{.producerName = "p", .compression = proto::ZSTD});
  EXPECT_EQ(encoded.metadata.compression(), proto::ZSTD);
  EXPECT_EQ(encoded.metadata.uncompressed_size(), 1000u);
  EXPECT_LT(encoded.payload.size(), 100u);
}

TEST(Outgoing, SendCommandTakesSequenceIdsFromTheMetadata) {
  proto::MessageMetadata meta;
  meta.set_sequence_id(10);
  auto send = detail::protocol::send(4, meta).send();
  EXPECT_EQ(send.producer_id(), 4u);
  EXPECT_EQ(send.sequence_id(), 10u);
  EXPECT_FALSE(send.has_num_messages());
  EXPECT_FALSE(send.has_highest_sequence_id());

  meta.set_num_messages_in_batch(3);
  meta.set_highest_sequence_id(12);
  send = detail::protocol::send(4, meta).send();
  EXPECT_EQ(send.num_messages(), 3);
  EXPECT_EQ(send.highest_sequence_id(), 12u);
}

TEST(Outgoing, SizeCheckNamesBothSizes) {
  OutgoingMessage message{.payload = std::string(100, 'x')};
  message.properties["RECONSUME_HISTORY"] = std::string(50, 'h');
  const auto encoded = encodeMessage(message, SendContext{.producerName = "p"});
  EXPECT_TRUE(checkMessageSize(encoded, 1000).ok());
  const auto status = checkMessageSize(encoded, 120);
  EXPECT_EQ(status.code, errc::too_large);
  EXPECT_EQ(status.message, "message of " + std::to_string(encoded.size()) +
                                " bytes (payload 100, metadata and properties " +
                                std::to_string(encoded.size() - 100) +
                                ") exceeds the broker's maximum message size 120");
}

}  // namespace
}  // namespace reconsume::detail::protocol
