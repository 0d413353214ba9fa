// The broker's side of the usual exchanges, for scripts of the FakeBroker: partition metadata,
// a lookup that names the broker, a producer or a subscription created, a send receipt, an
// acknowledgement confirmed, a consumer closed by the broker; and the client these scripts talk
// to.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

#include "pulsar_fake_broker.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::pulsar_test::answers {

inline const std::string kScriptedTopic = "persistent://public/default/scripted";

// Answers a PARTITIONED_METADATA already read: not partitioned.
inline void answerMetadata(FakePeer& peer, const proto::CommandPartitionedTopicMetadata& request) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
  answer.mutable_partitionmetadataresponse()->set_request_id(request.request_id());
  answer.mutable_partitionmetadataresponse()->set_partitions(0);
  answer.mutable_partitionmetadataresponse()->set_response(
      proto::CommandPartitionedTopicMetadataResponse::Success);
  peer.write(answer);
}

inline void answerMetadata(FakePeer& peer, const std::string& topic = kScriptedTopic) {
  auto request = peer.expect(proto::BaseCommand::PARTITIONED_METADATA).command.partitionmetadata();
  EXPECT_EQ(request.topic(), topic);
  answerMetadata(peer, request);
}

// Answers a LOOKUP already read: the broker at `url` serves the topic.
inline void answerLookup(FakePeer& peer, const proto::CommandLookupTopic& request,
                         const std::string& url) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  answer.mutable_lookuptopicresponse()->set_request_id(request.request_id());
  answer.mutable_lookuptopicresponse()->set_response(proto::CommandLookupTopicResponse::Connect);
  answer.mutable_lookuptopicresponse()->set_brokerserviceurl(url);
  peer.write(answer);
}

inline void answerLookup(FakePeer& peer, const std::string& url,
                         const std::string& topic = kScriptedTopic) {
  auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
  EXPECT_EQ(request.topic(), topic);
  answerLookup(peer, request, url);
}

// PRODUCER_SUCCESS to `request`, naming the producer "standalone-0-7".
inline void producerCreated(FakePeer& peer, const proto::CommandProducer& request) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::PRODUCER_SUCCESS);
  answer.mutable_producer_success()->set_request_id(request.request_id());
  answer.mutable_producer_success()->set_producer_name("standalone-0-7");
  answer.mutable_producer_success()->set_last_sequence_id(-1);
  peer.write(answer);
}

inline proto::CommandProducer answerProducer(FakePeer& peer) {
  auto request = peer.expect(proto::BaseCommand::PRODUCER).command.producer();
  producerCreated(peer, request);
  return request;
}

inline void receipt(FakePeer& peer, std::uint64_t producerId, std::uint64_t sequenceId,
                    std::uint64_t entry) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::SEND_RECEIPT);
  auto& receipt = *answer.mutable_send_receipt();
  receipt.set_producer_id(producerId);
  receipt.set_sequence_id(sequenceId);
  receipt.mutable_message_id()->set_ledgerid(40);
  receipt.mutable_message_id()->set_entryid(entry);
  peer.write(answer);
}

inline proto::CommandSubscribe acceptSubscribe(FakePeer& peer) {
  auto subscribe = peer.expect(proto::BaseCommand::SUBSCRIBE).command.subscribe();
  proto::BaseCommand success;
  success.set_type(proto::BaseCommand::SUCCESS);
  success.mutable_success()->set_request_id(subscribe.request_id());
  peer.write(success);
  return subscribe;
}

// A client subscribing to kScriptedTopic, from CONNECT up to its first FLOW, the broker at `url`
// serving the topic: returns the SUBSCRIBE.
inline proto::CommandSubscribe acceptUntilFlow(FakePeer& peer, const std::string& url) {
  peer.acceptConnect();
  answerMetadata(peer);
  answerLookup(peer, url);
  auto subscribe = acceptSubscribe(peer);
  peer.expect(proto::BaseCommand::FLOW);
  return subscribe;
}

// ACK_RESPONSE to `ack`: applied.
inline void confirmAck(FakePeer& peer, const proto::CommandAck& ack) {
  proto::BaseCommand response;
  response.set_type(proto::BaseCommand::ACK_RESPONSE);
  response.mutable_ackresponse()->set_consumer_id(ack.consumer_id());
  response.mutable_ackresponse()->set_request_id(ack.request_id());
  peer.write(response);
}

// CLOSE_PRODUCER, as the broker sends it when the topic is unloaded or moves to another broker.
inline void brokerClosesProducer(FakePeer& peer, std::uint64_t producerId) {
  proto::BaseCommand close;
  close.set_type(proto::BaseCommand::CLOSE_PRODUCER);
  close.mutable_close_producer()->set_producer_id(producerId);
  close.mutable_close_producer()->set_request_id(1000);
  peer.write(close);
}

// CLOSE_CONSUMER, as the broker sends it when the topic is unloaded or moves to another broker.
inline void brokerClosesConsumer(FakePeer& peer, std::uint64_t consumerId) {
  proto::BaseCommand close;
  close.set_type(proto::BaseCommand::CLOSE_CONSUMER);
  close.mutable_close_consumer()->set_consumer_id(consumerId);
  close.mutable_close_consumer()->set_request_id(1000);
  peer.write(close);
}

// The options of a client of a scripted broker: it logs nothing (the scripts close, drop and
// refuse on purpose), and waits `operationTimeout` for an answer (the client's default if none).
inline ClientOptions quietClientOptions(
    std::optional<std::chrono::milliseconds> operationTimeout = std::nullopt) {
  ClientOptions options;
  options.logger = [](LogLevel, std::string_view) {};
  if (operationTimeout) options.operationTimeout = *operationTimeout;
  return options;
}

inline Client quietClient(
    const std::string& url,
    std::optional<std::chrono::milliseconds> operationTimeout = std::nullopt) {
  return Client::connect(url, quietClientOptions(operationTimeout));
}

}  // namespace reconsume::pulsar_test::answers
