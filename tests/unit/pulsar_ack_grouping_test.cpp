// Grouped acknowledgements against a scripted broker (SPEC.md section 12): a message delivered
// again while its acknowledgement is held (the broker closed the consumer and it subscribed
// again) is not handed out a second time, nor taken for poison; closing the consumer sends the
// held acknowledgement before CLOSE_CONSUMER; and on Exclusive, where a negative
// acknowledgement redelivers everything, the held acknowledgements go out before it.
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

// The options of a consumer of the scripted topic, grouping its acknowledgements for the whole
// test unless something sends them.
ConsumerOptions heldAcks() {
  ConsumerOptions options;
  options.topics = {kScriptedTopic};
  options.subscription = "s";
  options.acknowledgmentGroupTime = 10min;
  return options;
}

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
  auto client = quietClient(url);
  auto options = heldAcks();
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

// Over maxRedeliverCount when it comes again, but acknowledged: not sent to the dead-letter topic
// (that would give it a second outcome). This broker answers whatever comes, sends messages only
// on the main topic, and notes a lookup of the dead-letter topic or a producer.
TEST(PulsarAckGrouping, AMessageWhoseAcknowledgementIsHeldIsNotDeadLetteredWhenItComesBack) {
  std::string url;
  std::promise<void> acknowledged;
  std::vector<std::string> deadLetterRequests;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    int mainSubscriptions = 0;
    std::uint64_t mainConsumer = 0;
    bool closedByBroker = false;
    for (;;) {
      detail::protocol::Frame frame;
      try {
        frame = peer.read(10s);
      } catch (const std::exception&) {
        // Closed by the client.
        EXPECT_TRUE(deadLetterRequests.empty()) << "asked about " << deadLetterRequests.front();
        return;
      }
      const auto& command = frame.command;
      switch (command.type()) {
        case proto::BaseCommand::PARTITIONED_METADATA: {
          // Asked at subscribe for the retry and dead-letter topics too (are they partitioned?).
          answerMetadata(peer, command.partitionmetadata());
          break;
        }
        case proto::BaseCommand::LOOKUP:
          if (command.lookuptopic().topic().ends_with("-DLQ")) {
            deadLetterRequests.push_back(command.lookuptopic().topic());
          }
          answerLookup(peer, command.lookuptopic(), url);
          break;
        case proto::BaseCommand::PRODUCER:
          deadLetterRequests.push_back(command.producer().topic());
          break;  // never answered: no producer is expected
        case proto::BaseCommand::SUBSCRIBE: {
          proto::BaseCommand success;
          success.set_type(proto::BaseCommand::SUCCESS);
          success.mutable_success()->set_request_id(command.subscribe().request_id());
          peer.write(success);
          if (command.subscribe().topic() != kScriptedTopic) break;
          auto id = command.subscribe().consumer_id();
          if (++mainSubscriptions == 1) {
            mainConsumer = id;
            peer.write(messageFrame(id, 1, "m", 1));
          } else {
            peer.write(messageFrame(id, 1, "m", 2));  // over the limit of 1 now
            peer.write(messageFrame(id, 2, "n"));
          }
          break;
        }
        case proto::BaseCommand::ACK:
          if (command.ack().has_request_id()) confirmAck(peer, command.ack());
          break;
        case proto::BaseCommand::FLOW:
          if (mainSubscriptions == 1 && !closedByBroker &&
              command.flow().consumer_id() == mainConsumer) {
            closedByBroker = true;
            EXPECT_EQ(acknowledged.get_future().wait_for(10s), std::future_status::ready);
            brokerClosesConsumer(peer, mainConsumer);  // the topic moves: subscribed again
          }
          break;
        default:
          peer.answerIfClose(frame);
      }
    }
  }});
  url = broker.url();
  auto client = quietClient(url);
  auto options = heldAcks();
  options.maxRedeliverCount = 1;
  auto consumer = client.subscribe(options);
  auto message = consumer.receive(10s);
  ASSERT_TRUE(message);
  consumer.acknowledge(*message);
  acknowledged.set_value();
  auto next = consumer.receive(10s);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->data(), "n");
  consumer.close();
  client.close();
}

TEST(PulsarAckGrouping, OnExclusiveHeldAcknowledgementsGoOutBeforeANegativeAcksRedelivery) {
  std::string url;
  std::promise<void> redelivered;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    auto id = acceptSubscribe(peer).consumer_id();
    peer.expect(proto::BaseCommand::FLOW);
    peer.write(messageFrame(id, 1, "m1"));
    peer.write(messageFrame(id, 2, "m2"));
    auto ack = nextBesidesFlow(peer);
    ASSERT_EQ(ack.type(), proto::BaseCommand::ACK)
        << "the broker would redeliver m1 too: " << proto::BaseCommand::Type_Name(ack.type())
        << " came before the held acknowledgement of m1";
    EXPECT_EQ(ack.ack().message_id(0).entryid(), 1u);
    if (ack.ack().has_request_id()) confirmAck(peer, ack.ack());
    EXPECT_EQ(nextBesidesFlow(peer).type(), proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
    redelivered.set_value();
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  auto client = quietClient(url);
  auto options = heldAcks();
  options.subscriptionType = SubscriptionType::exclusive;
  options.negativeAckRedeliveryDelay = 100ms;
  auto consumer = client.subscribe(options);
  auto first = consumer.receive(10s);
  auto second = consumer.receive(10s);
  ASSERT_TRUE(first && second);
  consumer.acknowledge(*first);
  consumer.negativeAcknowledge(*second);
  EXPECT_EQ(redelivered.get_future().wait_for(10s), std::future_status::ready);
  consumer.close();
  client.close();
}

}  // namespace
}  // namespace reconsume
