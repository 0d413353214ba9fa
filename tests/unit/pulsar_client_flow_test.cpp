// The public Client on pulsar:// against a scripted broker that checks and answers the exact
// commands: a producer writes its unconfirmed messages again, in order and with the same
// sequence ids, after its connection broke; a consumer acknowledges a batch entry once, when its
// last message is acknowledged, and waits for the broker's ACK_RESPONSE.
#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>

#include "protocol/batch_builder.hpp"
#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using namespace pulsar_test::answers;

const std::string kTopic = pulsar_test::answers::kScriptedTopic;

TEST(PulsarClientFlow, UnconfirmedMessagesAreWrittenAgainInOrderAfterAReconnection) {
  std::string url;
  std::vector<FakeBroker::Script> scripts;
  std::promise<void> firstConfirmed;
  std::uint64_t producerId = 0;
  scripts.push_back([&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto producer = answerProducer(peer);
    producerId = producer.producer_id();
    EXPECT_FALSE(producer.has_producer_name()) << "the broker names it";
    for (int i = 0; i < 3; ++i) {
      auto send = peer.expect(proto::BaseCommand::SEND);
      EXPECT_EQ(send.command.send().sequence_id(), static_cast<std::uint64_t>(i));
      EXPECT_EQ(send.payload, "m" + std::to_string(i));
      EXPECT_EQ(send.metadata->producer_name(), "standalone-0-7");
    }
    receipt(peer, producerId, 0, 0);
    firstConfirmed.set_value();
    // The connection breaks before m1 and m2 are confirmed.
  });
  scripts.push_back([&](FakePeer& peer) {
    peer.acceptConnect();
    answerLookup(peer, url);
    auto producer = answerProducer(peer);
    EXPECT_EQ(producer.producer_id(), producerId) << "the same producer comes back";
    EXPECT_EQ(producer.producer_name(), "standalone-0-7");
    EXPECT_FALSE(producer.user_provided_producer_name());
    EXPECT_EQ(producer.epoch(), 1u);
    for (int i = 1; i < 3; ++i) {
      auto send = peer.expect(proto::BaseCommand::SEND);
      EXPECT_EQ(send.command.send().sequence_id(), static_cast<std::uint64_t>(i));
      EXPECT_EQ(send.payload, "m" + std::to_string(i));
      receipt(peer, producerId, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(i));
    }
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  });
  FakeBroker broker(std::move(scripts));
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  ProducerOptions unbatched;
  unbatched.topic = kTopic;
  unbatched.batching.enabled = false;  // one entry per message (batches: the next test)
  auto producer = client.createProducer(unbatched);
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < 3; ++i) {
    OutgoingMessage message;
    message.payload = "m" + std::to_string(i);
    sent.push_back(producer.asyncSend(message, boost::asio::use_future));
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(sent[static_cast<std::size_t>(i)].wait_for(20s), std::future_status::ready) << i;
    EXPECT_EQ(sent[static_cast<std::size_t>(i)].get(), MessageId(40, i));
  }
  EXPECT_EQ(broker.accepted(), 2);
  client.close();
}

// A message the broker refuses with NotAllowedError (a topic policy's smaller maximum message
// size, for one) fails with broker_error naming the broker's reason, as in the Java client; the
// producer goes on with the next message on the same connection, not reconnecting to write the
// refused one again and again.
TEST(PulsarClientFlow, AMessageTheBrokerDoesNotAllowFailsAndTheNextOneGoesOn) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto producerId = answerProducer(peer).producer_id();
    EXPECT_EQ(peer.expect(proto::BaseCommand::SEND).command.send().sequence_id(), 0u);
    proto::BaseCommand error;
    error.set_type(proto::BaseCommand::SEND_ERROR);
    error.mutable_send_error()->set_producer_id(producerId);
    error.mutable_send_error()->set_sequence_id(0);
    error.mutable_send_error()->set_error(proto::NotAllowedError);
    error.mutable_send_error()->set_message("Exceed maximum message size");
    peer.write(error);
    EXPECT_EQ(peer.expect(proto::BaseCommand::SEND).command.send().sequence_id(), 1u);
    receipt(peer, producerId, 1, 1);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  ProducerOptions options;
  options.topic = kTopic;
  options.batching.enabled = false;
  options.sendTimeout = 20s;
  auto producer = client.createProducer(options);
  try {
    producer.send("big");
    FAIL() << "the refused message was reported sent";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::broker_error) << e.what();
    EXPECT_NE(std::string(e.what()).find("Exceed maximum message size"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(producer.send("small"), MessageId(40, 1));
  EXPECT_EQ(broker.accepted(), 1) << "no reconnection";
  client.close();
}

// A batch entry of three messages, as a Java producer writes it by default; `ackSet` as the
// broker sends it (bit i clear: index i acknowledged already).
std::string batchMessageFrame(std::uint64_t consumerId, std::vector<std::int64_t> ackSet = {}) {
  detail::protocol::BatchBuilder builder;
  for (int i = 0; i < 3; ++i) {
    OutgoingMessage message;
    message.payload = "b" + std::to_string(i);
    builder.add(message, static_cast<std::uint64_t>(i));
  }
  auto entry = builder.finish({.producerName = "java-1", .sequenceId = 0, .publishTimeMs = 5});
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(12);
  command.mutable_message()->mutable_message_id()->set_entryid(4);
  for (auto word : ackSet) command.mutable_message()->add_ack_set(word);
  std::string out;
  detail::protocol::appendPayloadFrame(out, command, entry.metadata, entry.payload);
  return out;
}

TEST(PulsarClientFlow, ABatchEntryIsAcknowledgedOnceItsLastMessageIs) {
  std::string url;
  std::promise<void> twoAcked;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto subscribe = peer.expect(proto::BaseCommand::SUBSCRIBE).command.subscribe();
    EXPECT_EQ(subscribe.subscription(), "batch-sub");
    EXPECT_EQ(subscribe.subtype(), proto::CommandSubscribe::Shared);
    proto::BaseCommand success;
    success.set_type(proto::BaseCommand::SUCCESS);
    success.mutable_success()->set_request_id(subscribe.request_id());
    peer.write(success);
    auto flow = peer.expect(proto::BaseCommand::FLOW).command.flow();
    EXPECT_EQ(flow.consumer_id(), subscribe.consumer_id());
    EXPECT_EQ(flow.messagepermits(), 50u) << "receiverQueueSize";
    peer.write(batchMessageFrame(subscribe.consumer_id()));
    twoAcked.get_future().wait();
    // Only now, after the third acknowledgement, does one ACK for the entry come.
    auto ack = peer.expect(proto::BaseCommand::ACK).command.ack();
    EXPECT_EQ(ack.ack_type(), proto::CommandAck::Individual);
    ASSERT_EQ(ack.message_id_size(), 1);
    EXPECT_EQ(ack.message_id(0).ledgerid(), 12u);
    EXPECT_EQ(ack.message_id(0).entryid(), 4u);
    EXPECT_EQ(ack.message_id(0).ack_set_size(), 0) << "the whole entry";
    ASSERT_TRUE(ack.has_request_id());
    EXPECT_EQ(ack.consumer_id(), subscribe.consumer_id());
    confirmAck(peer, ack);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  ConsumerOptions options;
  options.topics = {kTopic};
  options.subscription = "batch-sub";
  options.receiverQueueSize = 50;
  auto consumer = client.subscribe(options);
  std::vector<Message> messages;
  for (int i = 0; i < 3; ++i) {
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->data(), "b" + std::to_string(i));
    EXPECT_EQ(message->id(), MessageId(12, 4, -1, i));
    messages.push_back(*message);
  }
  consumer.acknowledge(messages[2]);  // complete at once: only recorded
  consumer.acknowledge(messages[0]);
  twoAcked.set_value();
  auto last = consumer.asyncAcknowledge(messages[1], boost::asio::use_future);
  ASSERT_EQ(last.wait_for(10s), std::future_status::ready);
  EXPECT_NO_THROW(last.get());
  client.close();
}

// The subscription of the batch-index tests: each acknowledgement sent at once and confirmed.
ConsumerOptions batchSubscription(bool batchIndexAcknowledgement) {
  ConsumerOptions options;
  options.topics = {kTopic};
  options.subscription = "batch-sub";
  options.acknowledgmentGroupTime = 0ms;
  options.batchIndexAcknowledgement = batchIndexAcknowledgement;
  return options;
}

// With batchIndexAcknowledgement each message's acknowledgement goes out at once, as an ACK of
// its entry whose ack_set leaves set only the indexes not acknowledged yet; the last one
// acknowledges the whole entry. Each waits for the broker's answer.
TEST(PulsarClientFlow, WithBatchIndexAcknowledgementEachMessageIsAcknowledgedByItsIndex) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    auto subscribe = acceptUntilFlow(peer, url);
    peer.write(batchMessageFrame(subscribe.consumer_id()));
    // Bit i set: index i not acknowledged yet.
    for (std::int64_t expected : {0b011, 0b010}) {
      auto ack = peer.expect(proto::BaseCommand::ACK).command.ack();
      ASSERT_EQ(ack.message_id_size(), 1);
      EXPECT_EQ(ack.message_id(0).ledgerid(), 12u);
      EXPECT_EQ(ack.message_id(0).entryid(), 4u);
      ASSERT_EQ(ack.message_id(0).ack_set_size(), 1);
      EXPECT_EQ(ack.message_id(0).ack_set(0), expected);
      EXPECT_EQ(ack.message_id(0).batch_size(), 3);
      confirmAck(peer, ack);
    }
    auto last = peer.expect(proto::BaseCommand::ACK).command.ack();
    ASSERT_EQ(last.message_id_size(), 1);
    EXPECT_EQ(last.message_id(0).ack_set_size(), 0) << "the whole entry";
    confirmAck(peer, last);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  auto consumer = client.subscribe(batchSubscription(true));
  std::vector<Message> messages;
  for (int i = 0; i < 3; ++i) {
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message);
    messages.push_back(*message);
  }
  consumer.acknowledge(messages[2]);
  consumer.acknowledge(messages[0]);
  consumer.acknowledge(messages[1]);
  client.close();
}

// The broker delivers the entry saying index 1 is acknowledged already — it says so too of an
// index acknowledged inside a transaction still open. This consumer's acknowledgements must leave
// index 1 set, so that an abort brings the message back: with batch-index acknowledgement on each
// ACK, and without it the entry's last one, which is not an acknowledgement of the whole entry.
void acknowledgeAroundAnIndexAcknowledgedElsewhere(bool batchIndexAcknowledgement) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    auto subscribe = acceptUntilFlow(peer, url);
    peer.write(batchMessageFrame(subscribe.consumer_id(), {0b101}));
    std::vector<std::int64_t> expected{0b010};
    if (batchIndexAcknowledgement) expected.insert(expected.begin(), 0b110);
    for (std::int64_t word : expected) {
      auto frame = peer.read();
      // The permit of the message not handed out comes back.
      if (frame.command.type() == proto::BaseCommand::FLOW) frame = peer.read();
      ASSERT_EQ(frame.command.type(), proto::BaseCommand::ACK);
      auto ack = frame.command.ack();
      ASSERT_EQ(ack.message_id_size(), 1);
      EXPECT_EQ(ack.message_id(0).entryid(), 4u);
      ASSERT_EQ(ack.message_id(0).ack_set_size(), 1) << "never the whole entry";
      EXPECT_EQ(ack.message_id(0).ack_set(0), word);
      EXPECT_EQ(ack.message_id(0).batch_size(), 3);
      confirmAck(peer, ack);
    }
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  auto consumer = client.subscribe(batchSubscription(batchIndexAcknowledgement));
  std::vector<Message> messages;
  for (int i : {0, 2}) {
    auto message = consumer.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->data(), "b" + std::to_string(i)) << "index 1 is not handed out";
    messages.push_back(*message);
  }
  consumer.acknowledge(messages[0]);
  consumer.acknowledge(messages[1]);
  client.close();
}

TEST(PulsarClientFlow, BatchIndexAcknowledgementsCarryOnlyTheIndexesThisConsumerAcknowledged) {
  acknowledgeAroundAnIndexAcknowledgedElsewhere(true);
}

TEST(PulsarClientFlow, AnEntryCompleteOnlyWithIndexesAcknowledgedElsewhereIsNotAckedWhole) {
  acknowledgeAroundAnIndexAcknowledgedElsewhere(false);
}

}  // namespace
}  // namespace reconsume

namespace reconsume {
namespace {

// Answers CLOSE_PRODUCER and CLOSE_CONSUMER, nothing else, until the client goes away.
void answerOnlyCloses(FakePeer& peer, std::promise<void>& asked, int requestsBeforeReady) {
  int requests = 0;
  for (;;) {
    detail::protocol::Frame frame;
    try {
      frame = peer.read(30s);
    } catch (const std::exception&) {
      return;  // the client closed the connection
    }
    if (peer.answerIfClose(frame)) continue;
    const auto type = frame.command.type();
    if (type == proto::BaseCommand::ACK || type == proto::BaseCommand::PARTITIONED_METADATA ||
        type == proto::BaseCommand::SEND) {
      if (++requests == requestsBeforeReady) asked.set_value();
    }
  }
}

TEST(PulsarClientFlow, ClosingTheClientCompletesEveryOperationInFlightOnceWithClosed) {
  std::string url;
  std::promise<void> asked;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto subscribe = peer.expect(proto::BaseCommand::SUBSCRIBE).command.subscribe();
    proto::BaseCommand success;
    success.set_type(proto::BaseCommand::SUCCESS);
    success.mutable_success()->set_request_id(subscribe.request_id());
    peer.write(success);
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(batchMessageFrame(subscribe.consumer_id()));
    // From here on: an ACK and a PARTITIONED_METADATA that are never answered.
    answerOnlyCloses(peer, asked, 2);
  }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  ConsumerOptions options;
  options.topics = {kTopic};
  options.subscription = "closing";
  options.acknowledgmentGroupTime = 0ms;  // the acknowledgement in flight until its answer
  auto consumer = client.subscribe(options);
  std::vector<Message> batch;
  for (int i = 0; i < 3; ++i) batch.push_back(*consumer.receive(10s));
  consumer.acknowledge(batch[0]);
  consumer.acknowledge(batch[1]);
  auto ack = consumer.asyncAcknowledge(batch[2], boost::asio::use_future);  // the entry's ACK
  auto lookup = std::async(std::launch::async, [&] { return client.partitionsOf(kTopic + "-x"); });
  auto receive = consumer.asyncReceive(boost::asio::use_future);
  ASSERT_EQ(asked.get_future().wait_for(10s), std::future_status::ready);

  auto start = std::chrono::steady_clock::now();
  client.close();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "close did not wait for timeouts";
  for (auto* future : {&ack}) {
    ASSERT_EQ(future->wait_for(10s), std::future_status::ready);
    try {
      future->get();
      ADD_FAILURE() << "the acknowledgement succeeded";
    } catch (const boost::system::system_error& e) {
      EXPECT_EQ(e.code(), errc::closed) << e.what();
    }
  }
  try {
    lookup.get();
    ADD_FAILURE() << "the lookup succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  }
  try {
    receive.get();
    ADD_FAILURE() << "the receive succeeded";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  }
}

}  // namespace
}  // namespace reconsume

namespace reconsume {
namespace {

std::string plainMessageFrame(std::uint64_t consumerId, std::uint64_t entry) {
  proto::MessageMetadata metadata;
  metadata.set_producer_name("p");
  metadata.set_sequence_id(entry);
  metadata.set_publish_time(1'700'000'000'000);
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(5);
  command.mutable_message()->mutable_message_id()->set_entryid(entry);
  std::string out;
  detail::protocol::appendPayloadFrame(out, command, metadata, "e" + std::to_string(entry));
  return out;
}

TEST(PulsarClientFlow, AReaderResumesAfterTheLastMessageItHadWithoutDuplicates) {
  std::string url;
  std::promise<void> firstRead;
  proto::CommandSubscribe first, second;
  std::uint32_t regranted = 0;
  FakeBroker broker({[&](FakePeer& peer) {
                       peer.acceptConnect();
                       answerMetadata(peer);
                       answerLookup(peer, url);
                       first = acceptSubscribe(peer);
                       peer.expect(proto::BaseCommand::FLOW);
                       for (std::uint64_t entry = 0; entry < 3; ++entry) {
                         peer.write(plainMessageFrame(first.consumer_id(), entry));
                       }
                       firstRead.get_future().wait();
                       // The connection breaks with e1 and e2 still in the reader's queue.
                     },
                     [&](FakePeer& peer) {
                       peer.acceptConnect();
                       answerLookup(peer, url);
                       second = acceptSubscribe(peer);
                       regranted =
                           peer.expect(proto::BaseCommand::FLOW).command.flow().messagepermits();
                       // The new cursor starts at the entry after the id given: e2 again, e3.
                       peer.write(plainMessageFrame(second.consumer_id(), 2));
                       peer.write(plainMessageFrame(second.consumer_id(), 3));
                       EXPECT_TRUE(peer.answerClosesUntilClosed());
                     }});
  url = broker.url();
  auto client = Client::connect(url, quietClientOptions(10s));
  ReaderOptions options;
  options.topic = kTopic;
  options.receiverQueueSize = 10;
  auto reader = client.createReader(options);
  std::vector<std::string> read;
  auto next = reader.readNext(10s);
  ASSERT_TRUE(next);
  read.emplace_back(next->data());
  firstRead.set_value();
  while (read.size() < 4) {
    auto message = reader.readNext(10s);
    if (!message) break;
    read.emplace_back(message->data());
  }
  EXPECT_EQ(read, (std::vector<std::string>{"e0", "e1", "e2", "e3"}));
  EXPECT_FALSE(reader.readNext(300ms)) << "a message came twice";
  EXPECT_FALSE(first.durable());
  EXPECT_EQ(first.initialposition(), proto::CommandSubscribe::Earliest);
  EXPECT_FALSE(first.has_start_message_id());
  ASSERT_TRUE(second.has_start_message_id());
  EXPECT_EQ(second.start_message_id().ledgerid(), 5u);
  EXPECT_EQ(second.start_message_id().entryid(), 1u) << "the entry before the last one handed on";
  EXPECT_NE(second.consumer_id(), first.consumer_id());
  EXPECT_EQ(regranted, 7u) << "what the broker held: 10 granted, 3 sent";
  client.close();
}

TEST(PulsarClientFlow, AReaderFromTheLastMessageReadsWhatComesNextWhenTheBrokerCannotSayWhich) {
  std::string url;
  bool askedFirst = false;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto subscribe = acceptSubscribe(peer);
    // No FLOW before the last message is known: the reader asks for it first.
    auto ask = peer.expect(proto::BaseCommand::GET_LAST_MESSAGE_ID).command.getlastmessageid();
    askedFirst = true;
    proto::BaseCommand error;
    error.set_type(proto::BaseCommand::ERROR);
    error.mutable_error()->set_request_id(ask.request_id());
    error.mutable_error()->set_error(proto::ServiceNotReady);
    error.mutable_error()->set_message("the managed ledger is not ready");
    peer.write(detail::protocol::encodeFrame(error));
    // It gives up on the last message and reads what is published next.
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(plainMessageFrame(subscribe.consumer_id(), 8));
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  std::mutex mutex;
  std::vector<std::string> warnings;
  auto options = quietClientOptions(10s);
  options.logger = [&](LogLevel level, std::string_view text) {
    std::lock_guard lock(mutex);
    if (level == LogLevel::warn) warnings.emplace_back(text);
  };
  auto client = Client::connect(url, options);
  ReaderOptions from;
  from.topic = kTopic;
  from.startMessageId = MessageId::latest();
  from.startMessageIdInclusive = true;
  auto reader = client.createReader(from);
  auto next = reader.readNext(10s);
  ASSERT_TRUE(next) << "the reader waits for ever instead";
  EXPECT_EQ(next->data(), "e8");
  EXPECT_TRUE(askedFirst);
  client.close();
  std::lock_guard lock(mutex);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot start at the last message"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("the managed ledger is not ready"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace reconsume

namespace reconsume {
namespace {

TEST(PulsarClientFlow, TlsFilesThatCannotBeLoadedAreNamedAtConnect) {
  ClientOptions options;
  options.tls.caFile = "/nonexistent/ca.pem";
  try {
    Client::connect("pulsar+ssl://localhost:6651", options);
    FAIL() << "a missing CA file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ca.pem"), std::string::npos) << e.what();
  }
  options.tls.caFile.clear();
  options.tls.certFile = "/tmp/client.pem";
  try {
    Client::connect("pulsar+ssl://localhost:6651", options);
    FAIL() << "a certificate without its key was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("keyFile"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace reconsume
