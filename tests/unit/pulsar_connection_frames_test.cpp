// The connection loop against a scripted peer speaking exact bytes: handshake, requests, routing
// to listeners, a damaged entry going to its consumer, broken input (truncation, oversize) ending
// the session.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "protocol/commands.hpp"
#include "pulsar/connection.hpp"
#include "pulsar_connection_test_support.hpp"
#include "pulsar_fake_broker.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using namespace connection_test;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

TEST(PulsarConnection, HandshakeThenRequestAndAnswer) {
  proto::CommandConnect seen;
  FakeBroker broker({[&](FakePeer& peer) {
    seen = peer.acceptConnect(1000);
    auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    EXPECT_EQ(lookup.topic(), "persistent://public/default/t");
    peer.write(lookupAnswer(lookup.request_id()));
    peer.waitForClose();
  }});
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("persistent://public/default/t", id), "LOOKUP t",
                      responses.callback(0));
  auto response = responses.wait(0);
  ASSERT_TRUE(response.status.ok()) << response.status.message;
  EXPECT_EQ(response.command.lookuptopicresponse().brokerserviceurl(), "pulsar://broker-1:6650");
  EXPECT_EQ(response.session, 1u);
  EXPECT_EQ(connection->maxMessageSize(), 1000u);
  EXPECT_EQ(seen.protocol_version(), detail::protocol::kProtocolVersion);
  EXPECT_FALSE(seen.has_auth_method_name());
  connection->close();
}

TEST(PulsarConnection, FramesReachTheListenerOfTheirIdAndPingsAreAnswered) {
  std::promise<void> ponged;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    auto subscribe = peer.expect(proto::BaseCommand::SUBSCRIBE).command.subscribe();
    proto::BaseCommand success;
    success.set_type(proto::BaseCommand::SUCCESS);
    success.mutable_success()->set_request_id(subscribe.request_id());
    peer.write(success);
    peer.write(messageFrame(7, 1, "for seven"));
    peer.write(messageFrame(8, 2, "for nobody"));
    peer.write(detail::protocol::encodeFrame(detail::protocol::ping()));
    peer.expect(proto::BaseCommand::PONG);
    ponged.set_value();
    peer.waitForClose();
  }});
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  auto listener = std::make_shared<RecordingListener>();
  connection->attach(Connection::Kind::consumer, 7, listener);
  Responses responses;
  detail::protocol::SubscribeRequest request;
  request.topic = "persistent://public/default/t";
  request.subscription = "s";
  request.consumerId = 7;
  request.requestId = connection->newRequestId();
  connection->request(request.requestId, detail::protocol::subscribe(request), "SUBSCRIBE",
                      responses.callback(0));
  auto subscribed = responses.wait(0);
  EXPECT_TRUE(subscribed.status.ok()) << subscribed.status.message;
  ASSERT_TRUE(listener->waitFor([&] { return listener->frames.size() == 1; }));
  EXPECT_EQ(listener->frames[0].payload, "for seven");
  EXPECT_EQ(ponged.get_future().wait_for(10s), std::future_status::ready);
  connection->close();
  ASSERT_TRUE(listener->waitFor([&] { return listener->lost.size() == 1; }));
  EXPECT_EQ(listener->lost[0].code, errc::closed);
  EXPECT_EQ(listener->frames.size(), 1u);
}

// SPEC.md section 5: a damaged entry (here a CRC32C mismatch) goes to its consumer as such —
// not as a frame — and the session goes on: what waits on it is answered, later frames arrive.
TEST(PulsarConnection, ADamagedEntryGoesToItsConsumerAndTheSessionGoesOn) {
  FakeBroker broker({[](FakePeer& peer) {
    peer.acceptConnect();
    auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    peer.write(messageFrame(3, 1, "good"));
    auto corrupt = messageFrame(3, 2, "flipped");
    corrupt.back() ^= 0x01;  // the payload no longer matches its CRC32C
    peer.write(corrupt);
    peer.write(messageFrame(3, 3, "after"));
    peer.write(lookupAnswer(lookup.request_id()));
    peer.waitForClose();
  }});
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  auto listener = std::make_shared<RecordingListener>();
  connection->attach(Connection::Kind::consumer, 3, listener);
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0));
  auto answered = responses.wait(0);
  EXPECT_TRUE(answered.status.ok()) << answered.status.message;
  EXPECT_EQ(answered.session, 1u);
  ASSERT_TRUE(listener->waitFor([&] { return listener->frames.size() == 2; }));
  EXPECT_EQ(listener->frames[0].payload, "good");
  EXPECT_EQ(listener->frames[1].payload, "after");
  ASSERT_EQ(listener->corrupt.size(), 1u);
  EXPECT_EQ(listener->corrupt[0].consumerId, 3u);
  EXPECT_EQ(listener->corrupt[0].id, MessageId(5, 2));
  EXPECT_EQ(listener->corrupt[0].reason, proto::CommandAck::ChecksumMismatch);
  EXPECT_TRUE(listener->lost.empty());
  EXPECT_EQ(broker.accepted(), 1);
  connection->close();
}

TEST(PulsarConnection, TruncatedAndOversizeInputEndTheSession) {
  std::vector<FakeBroker::Script> scripts;
  scripts.push_back([](FakePeer& peer) {
    peer.acceptConnect();
    peer.expect(proto::BaseCommand::LOOKUP);
    auto frame = messageFrame(3, 1, "cut short");
    peer.write(std::string_view(frame).substr(0, frame.size() / 2));  // then the broker is gone
  });
  scripts.push_back([](FakePeer& peer) {
    peer.acceptConnect(1000);
    peer.expect(proto::BaseCommand::LOOKUP);
    // A frame announcing 20 000 bytes where 1000 + padding is the limit: the size alone decides.
    peer.write(messageFrame(3, 1, std::string(20'000, 'x')).substr(0, 8));
    EXPECT_TRUE(peer.waitForClose());
  });
  FakeBroker broker(std::move(scripts));
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  Responses responses;
  for (int i = 0; i < 2; ++i) {
    auto id = connection->newRequestId();
    connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(i));
    auto response = responses.wait(i);
    EXPECT_EQ(response.status.code, errc::connection_lost) << response.status.message;
  }
  EXPECT_NE(responses.wait(1).status.message.find("exceeds"), std::string::npos)
      << responses.wait(1).status.message;
  connection->close();
}

}  // namespace
}  // namespace reconsume::detail::pulsar
