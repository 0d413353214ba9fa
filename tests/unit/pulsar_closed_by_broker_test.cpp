// A consumer the broker closes (a topic unloaded or moved to another broker):
//   - while one of its acknowledgements waits for an answer: the broker will not answer it, so
//     the acknowledgement goes again on the next subscription instead of waiting out the
//     operation timeout;
//   - and the application acknowledges before it is subscribed again: the acknowledgement
//     reaches the broker ahead of the next FLOW, or the broker would redeliver the message;
//   - before it answered the SUBSCRIBE with success (Pulsar does so to a reader that subscribes
//     again while a seek still holds its subscription's dispatcher closed): the success counts
//     for nothing, the consumer subscribes again, or it would wait for ever for messages.
// A producer the broker closes before it answered its creation is created again, likewise.
// Scripted rather than behaviour tests: the embedded broker never closes a live consumer, and a
// real Pulsar cannot be made to hold a lookup's answer while the application acknowledges, nor to
// close a handle between creating it and answering.
#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>
#include <optional>

#include "pulsar_connection_test_support.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using namespace pulsar_test::answers;

proto::CommandAck nextAck(FakePeer& peer) {
  for (;;) {
    auto frame = peer.read(10s);
    if (frame.command.type() == proto::BaseCommand::ACK) return frame.command.ack();
    if (frame.command.type() != proto::BaseCommand::FLOW) {
      ADD_FAILURE() << "expected ACK, got " << proto::BaseCommand::Type_Name(frame.command.type());
      return {};
    }
  }
}

// The broker's side up to the first subscription and message "m" (entry 1) delivered on it;
// returns the consumer's id.
std::uint64_t subscribeAndDeliver(FakePeer& peer, const std::string& url) {
  peer.acceptConnect();
  answerMetadata(peer);
  answerLookup(peer, url);
  auto consumerId = acceptSubscribe(peer).consumer_id();
  peer.expect(proto::BaseCommand::FLOW);
  peer.write(detail::pulsar::connection_test::messageFrame(consumerId, 1, "m"));
  return consumerId;
}

// A consumer of the scripted topic, subscription "s", grouping acknowledgements for `groupTime`
// (the default when none).
Consumer subscribeS(Client& client, std::optional<std::chrono::milliseconds> groupTime = {}) {
  ConsumerOptions options;
  options.topics = {kScriptedTopic};
  options.subscription = "s";
  if (groupTime) options.acknowledgmentGroupTime = *groupTime;
  return client.subscribe(options);
}

TEST(PulsarConsumerClosedByBroker, AnUnansweredAcknowledgementGoesAgainOnTheNextSubscription) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    auto first = subscribeAndDeliver(peer, url);
    auto unanswered = nextAck(peer);
    EXPECT_EQ(unanswered.consumer_id(), first);
    brokerClosesConsumer(peer, first);

    answerLookup(peer, url);
    auto second = acceptSubscribe(peer).consumer_id();
    EXPECT_NE(second, first);
    auto again = nextAck(peer);
    EXPECT_EQ(again.consumer_id(), second);
    ASSERT_EQ(again.message_id_size(), 1);
    EXPECT_EQ(again.message_id(0).ledgerid(), 5u);
    EXPECT_EQ(again.message_id(0).entryid(), 1u);
    confirmAck(peer, again);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = quietClient(url, 60s);      // far beyond the wait below
  auto consumer = subscribeS(client, 0ms);  // the ACK goes out at once and waits for its answer
  auto message = consumer.receive(10s);
  ASSERT_TRUE(message);
  auto acknowledged = consumer.asyncAcknowledge(*message, boost::asio::use_future);
  ASSERT_EQ(acknowledged.wait_for(30s), std::future_status::ready)
      << "the acknowledgement waited for an answer the broker will not send";
  EXPECT_NO_THROW(acknowledged.get());
  client.close();
}

TEST(PulsarConsumerClosedByBroker, AnAcknowledgementMadeWhileUnsubscribedGoesOutBeforeTheFlow) {
  std::string url;
  std::promise<void> received, detached, acknowledged;
  FakeBroker broker({[&](FakePeer& peer) {
    auto first = subscribeAndDeliver(peer, url);
    ASSERT_EQ(received.get_future().wait_for(10s), std::future_status::ready);
    brokerClosesConsumer(peer, first);

    // The consumer looks the topic up again: it has no subscription until this is answered.
    auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    detached.set_value();
    ASSERT_EQ(acknowledged.get_future().wait_for(10s), std::future_status::ready);
    answerLookup(peer, lookup, url);
    auto second = acceptSubscribe(peer).consumer_id();
    auto next = peer.read(10s).command;
    ASSERT_EQ(next.type(), proto::BaseCommand::ACK)
        << "the broker was asked for messages (" << proto::BaseCommand::Type_Name(next.type())
        << ") before it had the acknowledgement made in between: it would redeliver it";
    EXPECT_EQ(next.ack().consumer_id(), second);
    ASSERT_EQ(next.ack().message_id_size(), 1);
    EXPECT_EQ(next.ack().message_id(0).entryid(), 1u);
    confirmAck(peer, next.ack());
    peer.expect(proto::BaseCommand::FLOW);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = quietClient(url);
  auto consumer = subscribeS(client, 0ms);  // handed to the connection's side at once
  auto message = consumer.receive(10s);
  ASSERT_TRUE(message);
  received.set_value();
  ASSERT_EQ(detached.get_future().wait_for(10s), std::future_status::ready);
  auto acknowledging = consumer.asyncAcknowledge(*message, boost::asio::use_future);
  acknowledged.set_value();
  ASSERT_EQ(acknowledging.wait_for(10s), std::future_status::ready);
  EXPECT_NO_THROW(acknowledging.get());
  client.close();
}

TEST(PulsarConsumerClosedByBroker, AConsumerClosedBeforeItsSubscriptionWasAnsweredSubscribesAgain) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto subscribe = peer.expect(proto::BaseCommand::SUBSCRIBE).command.subscribe();
    brokerClosesConsumer(peer, subscribe.consumer_id());
    proto::BaseCommand success;
    success.set_type(proto::BaseCommand::SUCCESS);
    success.mutable_success()->set_request_id(subscribe.request_id());
    peer.write(success);

    // What the broker may still hold under that id is closed; then a new subscription.
    auto next = peer.read(10s);
    ASSERT_EQ(next.command.type(), proto::BaseCommand::CLOSE_CONSUMER)
        << "the consumer took a subscription the broker had closed: "
        << proto::BaseCommand::Type_Name(next.command.type());
    EXPECT_EQ(next.command.close_consumer().consumer_id(), subscribe.consumer_id());
    peer.answerIfClose(next);
    answerLookup(peer, url);
    auto second = acceptSubscribe(peer).consumer_id();
    EXPECT_NE(second, subscribe.consumer_id());
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(detail::pulsar::connection_test::messageFrame(second, 1, "m"));
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = quietClient(url);
  auto consumer = subscribeS(client);
  auto message = consumer.receive(10s);
  ASSERT_TRUE(message) << "the consumer was never subscribed again";
  EXPECT_EQ(message->data(), "m");
  client.close();
}

// A producer the broker closes before it answers its creation with success (Pulsar may, when the
// topic is unloaded meanwhile) is closed on the broker and created again; its messages go to the
// producer the broker keeps.
TEST(PulsarProducerClosedByBroker, AProducerClosedBeforeItsCreationWasAnsweredIsCreatedAgain) {
  std::string url;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto first = peer.expect(proto::BaseCommand::PRODUCER).command.producer();
    brokerClosesProducer(peer, first.producer_id());
    producerCreated(peer, first);

    auto next = peer.read(10s);
    ASSERT_EQ(next.command.type(), proto::BaseCommand::CLOSE_PRODUCER)
        << "the producer took a creation the broker had closed: "
        << proto::BaseCommand::Type_Name(next.command.type());
    peer.answerIfClose(next);
    answerLookup(peer, url);
    auto second = answerProducer(peer);
    EXPECT_GT(second.request_id(), first.request_id());
    auto send = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(send.payload, "m0");
    receipt(peer, second.producer_id(), send.command.send().sequence_id(), 0);
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = quietClient(url, 10s);
  ProducerOptions unbatched;
  unbatched.topic = kScriptedTopic;
  unbatched.batching.enabled = false;
  auto producer = client.createProducer(unbatched);
  OutgoingMessage message;
  message.payload = "m0";
  auto sent = producer.asyncSend(message, boost::asio::use_future);
  ASSERT_EQ(sent.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(sent.get(), MessageId(40, 0));
  client.close();
}

}  // namespace
}  // namespace reconsume
