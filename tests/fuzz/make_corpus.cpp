// Writes the seed corpus of the frame decoder fuzzer: valid frames as a client and a broker
// exchange them, each file prefixed with the fuzzer's mode byte (frame_decoder_fuzzer.cpp); with a
// second directory, also the seeds of transaction_response_fuzzer.cpp there.
// Usage: reconsume_fuzz_corpus <directory> [<transaction directory>]
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

#include "protocol/batch_builder.hpp"
#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/outgoing.hpp"
#include "protocol/transaction_commands.hpp"

using namespace reconsume;
using namespace reconsume::detail::protocol;

namespace {

proto::BaseCommand messageCommand(std::vector<std::int64_t> ackSet = {}) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(1);
  message.mutable_message_id()->set_ledgerid(100);
  message.mutable_message_id()->set_entryid(7);
  message.set_redelivery_count(1);
  for (auto word : ackSet) message.add_ack_set(word);
  return command;
}

EncodedMessage batch(proto::CompressionType compression) {
  BatchBuilder builder;
  for (int i = 0; i < 5; ++i) {
    OutgoingMessage message{.payload = "message " + std::to_string(i)};
    if (i % 2 == 0) message.key = "key-" + std::to_string(i);
    message.properties["RECONSUMETIMES"] = std::to_string(i);
    builder.add(message, static_cast<std::uint64_t>(i));
  }
  return builder.finish(SendContext{.producerName = "seed",
                                    .sequenceId = 0,
                                    .publishTimeMs = 1'700'000'000'000,
                                    .compression = compression});
}

// Every transaction answer, succeeded and failed, as frames (mode 0x00: one read) and as bare
// bodies (mode 1 + 2 * the body's index in the fuzzer's list).
template <typename Write>
void writeTransactionSeeds(Write write) {
  using Type = proto::BaseCommand;
  std::string stream;
  auto both = [&](const std::string& name, Type command, int index, const auto& body) {
    write(name, 0x00, encodeFrame(command));
    write(name + "-body", static_cast<char>(1 + 2 * index), body.SerializePartialAsString());
    appendFrame(stream, command);
  };
  for (bool failed : {false, true}) {
    const std::string suffix = failed ? "-failed" : "";
    Type command;
    command.set_type(Type::TC_CLIENT_CONNECT_RESPONSE);
    auto& connect = *command.mutable_tcclientconnectresponse();
    connect.set_request_id(1);
    if (failed) connect.set_error(proto::TransactionCoordinatorNotFound);
    both("tc-connect" + suffix, command, 0, connect);

    auto fill = [&](auto& body) {
      body.set_request_id(2);
      body.set_txnid_most_bits(1);
      body.set_txnid_least_bits(42);
      if (failed) body.set_error(proto::TransactionNotFound);
      if (failed) body.set_message("Transaction not found");
    };
    command.Clear();
    command.set_type(Type::NEW_TXN_RESPONSE);
    fill(*command.mutable_newtxnresponse());
    both("new-txn" + suffix, command, 1, command.newtxnresponse());
    command.Clear();
    command.set_type(Type::ADD_PARTITION_TO_TXN_RESPONSE);
    fill(*command.mutable_addpartitiontotxnresponse());
    both("add-partition" + suffix, command, 2, command.addpartitiontotxnresponse());
    command.Clear();
    command.set_type(Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE);
    fill(*command.mutable_addsubscriptiontotxnresponse());
    both("add-subscription" + suffix, command, 3, command.addsubscriptiontotxnresponse());
    command.Clear();
    command.set_type(Type::END_TXN_RESPONSE);
    fill(*command.mutable_endtxnresponse());
    both("end-txn" + suffix, command, 4, command.endtxnresponse());
    command.Clear();
    command.set_type(Type::ACK_RESPONSE);
    command.mutable_ackresponse()->set_consumer_id(3);
    fill(*command.mutable_ackresponse());
    if (failed) command.mutable_ackresponse()->set_error(proto::TransactionConflict);
    both("ack" + suffix, command, 5, command.ackresponse());
  }
  write("all-answers", 0x0e, stream);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::cerr << "usage: " << argv[0] << " <directory> [<transaction directory>]\n";
    return 2;
  }
  std::string directory = argv[1];
  int written = 0;
  auto write = [&](const std::string& name, char mode, const std::string& stream) {
    std::ofstream out(directory + "/" + name, std::ios::binary);
    out.put(mode);
    out << stream;
    ++written;
  };

  write("ping", 0x00, encodeFrame(ping()));
  write("connect", 0x03, encodeFrame(connect(ConnectRequest::withToken("token"))));
  write("subscribe", 0x00,
        encodeFrame(subscribe(SubscribeRequest{.topic = "persistent://public/default/t",
                                               .subscription = "s",
                                               .type = SubscriptionType::keyShared,
                                               .startMessageId = MessageId(1, 2, 0, 3, 4)})));
  proto::BaseCommand error;
  error.set_type(proto::BaseCommand::ERROR);
  error.mutable_error()->set_request_id(4);
  error.mutable_error()->set_error(proto::TopicNotFound);
  error.mutable_error()->set_message("Topic not found");
  write("error", 0x00, encodeFrame(error));

  OutgoingMessage single{.payload = "a single message", .key = "k", .orderingKey = "o"};
  single.properties = {{"REAL_TOPIC", "persistent://public/default/t"}};
  const SendContext context{.producerName = "seed", .sequenceId = 9, .publishTimeMs = 1000};
  write("send", 0x00, encodeSend(1, encodeMessage(single, context)));

  const char* names[] = {"none", "lz4", "zlib", "zstd", "snappy"};
  for (int c = 0; c <= 4; ++c) {
    const auto type = static_cast<proto::CompressionType>(c);
    SendContext compressed = context;
    compressed.compression = type;
    const auto plain = encodeMessage(single, compressed);
    std::string frame;
    appendPayloadFrame(frame, messageCommand(), plain.metadata, plain.payload);
    write(std::string("message-") + names[c], 0x40, frame);

    const auto entry = batch(type);
    frame.clear();
    appendPayloadFrame(frame, messageCommand({0b10110}), entry.metadata, entry.payload);
    write(std::string("batch-") + names[c], 0x40, frame);
  }

  proto::BrokerEntryMetadata brokerEntry;
  brokerEntry.set_broker_timestamp(1'700'000'000'001);
  brokerEntry.set_index(12);
  const auto entry = batch(proto::NONE);
  std::string stream = encodeFrame(pong());
  appendPayloadFrame(stream, messageCommand(), brokerEntry, entry.metadata, entry.payload);
  appendFrame(stream, flow(1, 100));
  write("several-with-broker-entry-metadata", 0x05, stream);

  std::cout << "wrote " << written << " seeds to " << directory << "\n";
  if (argc == 3) {
    directory = argv[2];
    written = 0;
    writeTransactionSeeds(write);
    std::cout << "wrote " << written << " seeds to " << directory << "\n";
  }
  return 0;
}
