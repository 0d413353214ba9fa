// Client::close against a broker that stopped answering: a producer with no send timeout waits
// for a receipt that never comes, and close() still returns within the client's operationTimeout,
// completing the send with errc::closed. A second close() from another thread waits for the first
// instead of returning while the first is still closing. A producer dropped while it reconnects
// answers its sends too.
#include <gtest/gtest.h>

#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>

#include "pulsar_fake_broker.hpp"
#include "pulsar_scripted_answers.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using namespace pulsar_test::answers;

constexpr auto kOperationTimeout = 2s;

// A broker that creates the producer and reads its first SEND; then, silent, it answers nothing
// (not even PINGs) until the client goes, or else it goes away at once — the producer then
// reconnects, and no connection is answered any more.
auto afterTheFirstSend(std::string& url, std::promise<void>& sent, bool silent) {
  return [&url, &sent, silent](FakePeer& peer) {
    peer.acceptConnect();
    answerMetadata(peer);
    answerLookup(peer, url);
    answerProducer(peer);
    peer.expect(proto::BaseCommand::SEND);
    sent.set_value();
    if (silent) peer.waitForClose(30s);
  };
}
auto silentAfterTheFirstSend(std::string& url, std::promise<void>& sent) {
  return afterTheFirstSend(url, sent, true);
}
auto goneAfterTheFirstSend(std::string& url, std::promise<void>& sent) {
  return afterTheFirstSend(url, sent, false);
}

struct Silenced {
  Client client;
  Producer producer;
  std::future<MessageId> send;
};

// A client whose producer (sendTimeout 0: wait for ever) has one send the broker never confirms;
// its log goes to `logger`.
Silenced silenced(
    const std::string& url, std::promise<void>& sent,
    decltype(ClientOptions::logger) logger = [](LogLevel, std::string_view) {}) {
  ClientOptions options;
  options.logger = std::move(logger);
  options.operationTimeout = kOperationTimeout;
  auto client = Client::connect(url, options);
  ProducerOptions producerOptions;
  producerOptions.topic = kScriptedTopic;
  producerOptions.sendTimeout = 0ms;
  auto producer = client.createProducer(producerOptions);
  OutgoingMessage message;
  message.payload = "never confirmed";
  auto send = producer.asyncSend(message, boost::asio::use_future);
  EXPECT_EQ(sent.get_future().wait_for(10s), std::future_status::ready);
  return {client, producer, std::move(send)};
}

void expectClosed(std::future<MessageId>& send) {
  ASSERT_EQ(send.wait_for(10s), std::future_status::ready);
  try {
    send.get();
    ADD_FAILURE() << "the send succeeded";
  } catch (const boost::system::system_error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  }
}

TEST(ClientClose, ReturnsWithinTheOperationTimeoutWhenTheBrokerIsSilent) {
  std::string url;
  std::promise<void> sent;
  FakeBroker broker({silentAfterTheFirstSend(url, sent)});
  url = broker.url();
  auto state = silenced(url, sent);

  auto start = std::chrono::steady_clock::now();
  state.client.close();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, kOperationTimeout + 3s) << "close waited for the silent broker";
  expectClosed(state.send);
}

TEST(ClientClose, ASecondCloseWaitsForTheFirst) {
  std::string url;
  std::promise<void> sent;
  FakeBroker broker({silentAfterTheFirstSend(url, sent)});
  url = broker.url();
  auto state = silenced(url, sent);

  // Both closes start within moments of each other; the first waits out the grace period for the
  // unconfirmed send, and so must the second (before, it returned at once).
  auto timed = [&state] {
    auto start = std::chrono::steady_clock::now();
    state.client.close();
    return std::chrono::steady_clock::now() - start;
  };
  auto other = std::async(std::launch::async, timed);
  auto mine = timed();
  ASSERT_EQ(other.wait_for(30s), std::future_status::ready);
  auto theirs = other.get();
  // The later of the two started at most moments after the earlier one.
  EXPECT_GT(std::min(mine, theirs), kOperationTimeout / 2);
  EXPECT_LT(std::max(mine, theirs), kOperationTimeout + 3s);
  expectClosed(state.send);
}

// The application drops its producer and client, without close(), while the producer reconnects
// to a broker that is gone: the send still waiting for its receipt completes with closed. (The
// producer's reconnection loop held the producer, so it was never destroyed and the send never
// answered.)
TEST(ClientClose, ASendOfAProducerDroppedWhileItReconnectsIsAnswered) {
  std::string url;
  std::promise<void> sent;
  FakeBroker broker({goneAfterTheFirstSend(url, sent)});
  url = broker.url();
  auto reconnecting = std::make_shared<std::promise<void>>();
  auto once = std::make_shared<std::once_flag>();
  std::future<MessageId> send;
  {
    auto state = silenced(url, sent, [reconnecting, once](LogLevel, std::string_view line) {
      if (line.find(" reconnects in ") != std::string_view::npos) {
        std::call_once(*once, [&] { reconnecting->set_value(); });
      }
    });
    send = std::move(state.send);
    ASSERT_EQ(reconnecting->get_future().wait_for(10s), std::future_status::ready);
  }  // the producer and the client go, without close()
  expectClosed(send);
}

}  // namespace
}  // namespace reconsume
