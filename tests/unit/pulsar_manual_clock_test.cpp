// The pulsar:// backend on a ManualSteadyClock against a scripted broker: a send timeout and a
// reconnect backoff happen when the test moves the clock, not after waiting for them, and so does
// a batch's maxPublishDelay.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <future>
#include <thread>

#include "pulsar/pulsar_backend.hpp"
#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"

namespace reconsume::detail {
namespace {

using namespace std::chrono_literals;
using namespace pulsar_test::answers;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

// A pulsar:// backend whose timers run on `clock`, with its I/O thread.
class ManualClockBackend {
 public:
  ManualClockBackend(const std::string& url, std::shared_ptr<ManualSteadyClock> clock) {
    ClientOptions options;
    options.operationTimeout = 10s;
    backend = pulsar::connectPulsar(ServiceUrl::parse(url), options, io,
                                    Log([](LogLevel, std::string_view) {}, LogLevel::error),
                                    std::move(clock));
    thread = std::thread([this] { io.run(); });
  }
  ~ManualClockBackend() {
    std::promise<void> closed;
    backend->close([&](const Status&) { closed.set_value(); });
    closed.get_future().wait();
    work.reset();  // the connections finish closing, then the thread runs out of work
    thread.join();
  }

  std::shared_ptr<client::BackendProducer> createProducer(ProducerOptions options) {
    std::promise<std::shared_ptr<client::BackendProducer>> created;
    backend->createProducer(options,
                            [&](const Status& status, std::shared_ptr<client::BackendProducer> p) {
                              EXPECT_TRUE(status.ok()) << status.message;
                              created.set_value(std::move(p));
                            });
    return created.get_future().get();
  }

  // A producer of the scripted topic without batching, so that a send goes out at once (a batch
  // would wait for its delay, on this clock too).
  std::shared_ptr<client::BackendProducer> createUnbatchedProducer(
      std::chrono::seconds sendTimeout) {
    ProducerOptions options;
    options.topic = kScriptedTopic;
    options.sendTimeout = sendTimeout;
    options.batching.enabled = false;
    return createProducer(options);
  }

  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
  std::shared_ptr<client::Backend> backend;
  std::thread thread;
};

TEST(PulsarManualClock, ASendTimesOutWhenTheClockPassesTheSendTimeout) {
  std::string url;
  std::promise<void> sendSeen;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerLookup(peer, url);
    answerProducer(peer);
    peer.expect(proto::BaseCommand::SEND);  // and never a receipt
    sendSeen.set_value();
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  auto clock = std::make_shared<ManualSteadyClock>();
  ManualClockBackend backend(url, clock);
  auto producer = backend.createUnbatchedProducer(30s);

  std::promise<Status> result;
  OutgoingMessage message;
  message.payload = "never confirmed";
  producer->send(message, [&](const Status& status, MessageId) { result.set_value(status); });
  ASSERT_EQ(sendSeen.get_future().wait_for(10s), std::future_status::ready);
  auto outcome = result.get_future();
  clock->advance(29s);
  EXPECT_EQ(outcome.wait_for(100ms), std::future_status::timeout) << "29 s is not 30 s";
  clock->advance(1s);
  ASSERT_EQ(outcome.wait_for(10s), std::future_status::ready);
  auto status = outcome.get();
  EXPECT_EQ(status.code, make_error_code(errc::timeout));
  EXPECT_NE(status.message.find("sendTimeout"), std::string::npos) << status.message;
}

// The send timer stays armed for the first message's deadline after its receipt (the queue is
// empty then); firing with the second message pending, it must neither fail that one early nor
// leave it without a deadline.
TEST(PulsarManualClock, ASendAfterAConfirmedOneTimesOutAtItsOwnDeadline) {
  std::string url;
  std::promise<void> secondSeen;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerLookup(peer, url);
    auto producerId = answerProducer(peer).producer_id();
    peer.expect(proto::BaseCommand::SEND);
    receipt(peer, producerId, 0, 0);
    peer.expect(proto::BaseCommand::SEND);  // and never a receipt
    secondSeen.set_value();
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  auto clock = std::make_shared<ManualSteadyClock>();
  ManualClockBackend backend(url, clock);
  auto producer = backend.createUnbatchedProducer(6s);

  std::promise<Status> first, second;
  OutgoingMessage message;
  message.payload = "confirmed";
  producer->send(message, [&](const Status& status, MessageId) { first.set_value(status); });
  auto confirmed = first.get_future();
  ASSERT_EQ(confirmed.wait_for(10s), std::future_status::ready);
  ASSERT_TRUE(confirmed.get().ok());

  clock->advance(2s);
  message.payload = "never confirmed";
  producer->send(message, [&](const Status& status, MessageId) { second.set_value(status); });
  ASSERT_EQ(secondSeen.get_future().wait_for(10s), std::future_status::ready);
  auto outcome = second.get_future();
  clock->advance(4s);  // the first message's deadline: the timer fires with nothing due
  EXPECT_EQ(outcome.wait_for(100ms), std::future_status::timeout) << "6 s after the first send";
  clock->advance(1s);
  EXPECT_EQ(outcome.wait_for(100ms), std::future_status::timeout) << "5 s after the second";
  clock->advance(1s);
  ASSERT_EQ(outcome.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(outcome.get().code, make_error_code(errc::timeout));
}

TEST(PulsarManualClock, AProducerComesBackOnlyAfterTheBackoffOnTheClock) {
  std::string url;
  std::promise<void> dropped, back;
  FakeBroker broker({[&](FakePeer& peer) {
                       peer.acceptConnect();
                       answerLookup(peer, url);
                       answerProducer(peer);
                       dropped.set_value();  // the script ends: the connection is closed
                     },
                     [&](FakePeer& peer) {
                       peer.acceptConnect();
                       answerLookup(peer, url);
                       answerProducer(peer);
                       back.set_value();
                       peer.answerClosesUntilClosed();
                     }});
  url = broker.url();
  auto clock = std::make_shared<ManualSteadyClock>();
  ManualClockBackend backend(url, clock);
  ProducerOptions options;
  options.topic = kScriptedTopic;
  auto producer = backend.createProducer(options);
  ASSERT_EQ(dropped.get_future().wait_for(10s), std::future_status::ready);
  // The connection's reconnect delay and the producer's re-creation delay, both on the clock.
  ASSERT_TRUE(clock->waitForPendingWaits(2, 10s));
  auto reconnected = back.get_future();
  EXPECT_EQ(reconnected.wait_for(200ms), std::future_status::timeout)
      << "nothing reconnects while the clock stands";
  EXPECT_EQ(broker.accepted(), 1);
  clock->advance(100ms);  // the first backoff step (at most 100 ms with jitter)
  EXPECT_EQ(reconnected.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(broker.accepted(), 2);
}

// A batch is written maxPublishDelay after its own first message (SPEC.md section 11), not when
// the batch timer fires for an earlier batch: here batch A opens at 0 and goes out at 0.6 s, when
// a message that no longer fits opens batch B; at 1 s, A's old deadline, B has waited 0.4 s of
// its 1 s and stays open (the timer arms again for it) until 1.6 s.
TEST(PulsarManualClock, ABatchIsWrittenMaxPublishDelayAfterItsOwnFirstMessage) {
  std::string url;
  std::promise<void> firstSeen, secondSeen;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerLookup(peer, url);
    auto producerId = answerProducer(peer).producer_id();
    auto first = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(first.metadata->num_messages_in_batch(), 2) << "A: m0 and m1";
    firstSeen.set_value();
    receipt(peer, producerId, 0, 0);
    auto second = peer.expect(proto::BaseCommand::SEND);
    EXPECT_EQ(second.command.send().sequence_id(), 2u);
    EXPECT_EQ(second.payload, std::string(100, '2')) << "B: m2 alone, a plain message";
    secondSeen.set_value();
    receipt(peer, producerId, 2, 1);
    peer.answerClosesUntilClosed();
  }});
  url = broker.url();
  auto clock = std::make_shared<ManualSteadyClock>();
  ManualClockBackend backend(url, clock);
  ProducerOptions options;
  options.topic = kScriptedTopic;
  options.sendTimeout = 0s;  // no send timer on the clock: only the batch timer waits there
  options.batching.maxPublishDelay = 1s;
  options.batching.maxBytes = 300;  // two messages of 100 bytes fit, a third does not
  auto producer = backend.createProducer(options);
  const auto before = clock->pendingWaits();

  std::vector<std::promise<Status>> sent(3);
  auto send = [&](int i) {
    OutgoingMessage message;
    message.payload = std::string(100, static_cast<char>('0' + i));
    producer->send(message, [&sent, i](const Status& status, MessageId) {
      sent[static_cast<std::size_t>(i)].set_value(status);
    });
  };
  send(0);
  ASSERT_TRUE(clock->waitForPendingWaits(before + 1, 10s)) << "A opened, its timer armed";
  clock->advance(600ms);
  send(1);
  send(2);  // does not fit: A goes out, B opens with it
  ASSERT_EQ(firstSeen.get_future().wait_for(10s), std::future_status::ready);
  clock->advance(400ms);  // A's deadline
  EXPECT_TRUE(clock->waitForPendingWaits(before + 1, 10s))
      << "the timer armed again, for B's deadline at 1.6 s";
  auto second = secondSeen.get_future();
  EXPECT_EQ(second.wait_for(100ms), std::future_status::timeout) << "B is not due at 1 s";
  clock->advance(600ms);
  ASSERT_EQ(second.wait_for(10s), std::future_status::ready);
  for (auto& each : sent) {
    auto status = each.get_future();
    ASSERT_EQ(status.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(status.get().ok());
  }
}

}  // namespace
}  // namespace reconsume::detail
