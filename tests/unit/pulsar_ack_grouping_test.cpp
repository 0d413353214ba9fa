// Grouped acknowledgements against a scripted broker (SPEC.md section 12): a message delivered
// again while its acknowledgement is held (the broker closed the consumer and it subscribed
// again) is not handed out a second time, and closing the consumer sends the held
// acknowledgement before CLOSE_CONSUMER.
#include <gtest/gtest.h>

#include <future>

#include "pulsar_connection_test_support.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using detail::pulsar::connection_test::messageFrame;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using namespace pulsar_test::answers;

// The next frame that is not a FLOW.
proto::BaseCommand nextBesidesFlow(FakePeer& peer) {
  for (;;) {
    auto frame = peer.read(10s);
    if (frame.command.type() != proto::BaseCommand::FLOW) return frame.command;
  }
}

TEST(PulsarAckGrouping, AMessageWhoseAcknowledgementIsHeldIsNotHandedOutAgain) {
  std::string url;
  std::promise<void> acknowledged;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto first = acceptSubscribe(peer).consumer_id();
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(messageFrame(first, 1, "m"));
    ASSERT_EQ(acknowledged.get_future().wait_for(10s), std::future_status::ready);
    // The topic moves: the consumer subscribes again, and the broker, which never got the
    // acknowledgement, delivers the message again.
    brokerClosesConsumer(peer, first);
    answerLookup(peer, url);
    auto second = acceptSubscribe(peer).consumer_id();
    peer.write(messageFrame(second, 1, "m"));
    peer.write(messageFrame(second, 2, "n"));

    auto ack = nextBesidesFlow(peer);
    ASSERT_EQ(ack.type(), proto::BaseCommand::ACK)
        << "the held acknowledgement goes out before " << proto::BaseCommand::Type_Name(ack.type());
    ASSERT_EQ(ack.ack().message_id_size(), 1);
    EXPECT_EQ(ack.ack().message_id(0).entryid(), 1u);
    EXPECT_EQ(ack.ack().consumer_id(), second);
    confirmAck(peer, ack.ack());
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  ClientOptions clientOptions;
  clientOptions.logger = [](LogLevel, std::string_view) {};
  auto client = Client::connect(url, clientOptions);
  ConsumerOptions options;
  options.topics = {kScriptedTopic};
  options.subscription = "s";
  options.acknowledgmentGroupTime = 10min;  // held for the whole test
  auto consumer = client.subscribe(options);
  auto message = consumer.receive(10s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->data(), "m");
  consumer.acknowledge(*message);
  acknowledged.set_value();
  auto next = consumer.receive(10s);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->data(), "n") << "the message whose acknowledgement is held came again";
  consumer.close();
  client.close();
}

}  // namespace
}  // namespace reconsume
