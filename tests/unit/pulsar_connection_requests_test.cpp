// The connection loop against a scripted peer: requests that time out, close, tokens and auth
// challenges, keep-alive, and requests waiting for a connection.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <string>

#include "protocol/commands.hpp"
#include "pulsar/connection.hpp"
#include "pulsar_connection_test_support.hpp"
#include "pulsar_fake_broker.hpp"
#include "refusing_port.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using namespace connection_test;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;
using ::reconsume::testing::RefusingPort;

TEST(PulsarConnection, UnansweredRequestTimesOutOnceAndLateAnswersAreIgnored) {
  std::promise<std::uint64_t> asked;
  std::promise<void> timedOut;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    auto id = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic().request_id();
    asked.set_value(id);
    timedOut.get_future().wait();
    peer.write(lookupAnswer(id));  // too late
    peer.waitForClose();
  }});
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0),
                      200ms);
  auto response = responses.wait(0);
  EXPECT_EQ(response.status.code, errc::timeout);
  EXPECT_NE(response.status.message.find("LOOKUP t"), std::string::npos) << response.status.message;
  EXPECT_NE(response.status.message.find("200 ms"), std::string::npos) << response.status.message;
  asked.get_future().wait();
  timedOut.set_value();
  // A second request on the same session still works (the late answer changed nothing).
  auto next = connection->newRequestId();
  connection->request(next, detail::protocol::lookup("t", next), "LOOKUP t", responses.callback(1),
                      300ms);
  EXPECT_EQ(responses.wait(1).status.code, errc::timeout);
  EXPECT_EQ(responses.count(), 2u);
  connection->close();
}

TEST(PulsarConnection, CloseCompletesEveryRequestOnceWithClosed) {
  std::promise<void> received;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    for (int i = 0; i < 3; ++i) peer.expect(proto::BaseCommand::LOOKUP);
    received.set_value();
    peer.waitForClose();
  }});
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  Responses responses;
  for (int i = 0; i < 3; ++i) {
    auto id = connection->newRequestId();
    connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(i));
  }
  ASSERT_EQ(received.get_future().wait_for(10s), std::future_status::ready);
  connection->close();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(responses.wait(i).status.code, errc::closed);
  // After close, requests fail at once.
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(3));
  EXPECT_EQ(responses.wait(3).status.code, errc::closed);
  EXPECT_FALSE(connection->usable());
}

TEST(PulsarConnection, TokenIsSentAndARefusalFailsWaitingRequestsWithTheBrokersText) {
  proto::CommandConnect seen;
  FakeBroker broker({[&](FakePeer& peer) {
    seen = peer.expect(proto::BaseCommand::CONNECT).command.connect();
    proto::BaseCommand error;
    error.set_type(proto::BaseCommand::ERROR);
    error.mutable_error()->set_request_id(static_cast<std::uint64_t>(-1));
    error.mutable_error()->set_error(proto::AuthenticationError);
    error.mutable_error()->set_message("Failed to authenticate: token expired");
    peer.write(error);
  }});
  IoThread io;
  auto o = options();
  o->credentials = Credentials::token("secret-token");
  auto connection = Connection::create(io.executor(), addressOf(broker), o);
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0));
  auto response = responses.wait(0);
  EXPECT_EQ(response.status.code, errc::authentication);
  EXPECT_NE(response.status.message.find("token expired"), std::string::npos)
      << response.status.message;
  EXPECT_EQ(seen.auth_method_name(), "token");
  EXPECT_EQ(seen.auth_data(), "secret-token");
  EXPECT_FALSE(connection->usable());
  EXPECT_EQ(broker.accepted(), 1) << "an authentication failure is not retried";
}

TEST(PulsarConnection, AuthChallengeIsAnsweredWithFreshCredentials) {
  std::atomic<int> reads{0};
  std::string answered;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.expect(proto::BaseCommand::CONNECT);
    proto::BaseCommand challenge;
    challenge.set_type(proto::BaseCommand::AUTH_CHALLENGE);
    challenge.mutable_authchallenge()->mutable_challenge()->set_auth_method_name("token");
    peer.write(challenge);
    answered = peer.expect(proto::BaseCommand::AUTH_RESPONSE)
                   .command.authresponse()
                   .response()
                   .auth_data();
    proto::BaseCommand connected;
    connected.set_type(proto::BaseCommand::CONNECTED);
    connected.mutable_connected()->set_server_version("fake");
    peer.write(connected);
    auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    peer.write(lookupAnswer(lookup.request_id()));
    peer.waitForClose();
  }});
  IoThread io;
  auto o = options();
  o->credentials = Credentials::tokenFrom([&] { return "token-" + std::to_string(++reads); });
  auto connection = Connection::create(io.executor(), addressOf(broker), o);
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0));
  EXPECT_TRUE(responses.wait(0).status.ok());
  EXPECT_EQ(answered, "token-2");
  connection->close();
}

TEST(PulsarConnection, SilentPeerGetsAPingAndIsDroppedAfterTwiceTheInterval) {
  std::promise<std::chrono::steady_clock::duration> pinged;
  std::promise<std::chrono::steady_clock::duration> dropped;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    auto start = std::chrono::steady_clock::now();
    peer.expect(proto::BaseCommand::LOOKUP);
    auto ping = peer.read();
    EXPECT_EQ(ping.command.type(), proto::BaseCommand::PING);
    pinged.set_value(std::chrono::steady_clock::now() - start);
    EXPECT_TRUE(peer.waitForClose());
    dropped.set_value(std::chrono::steady_clock::now() - start);
  }});
  IoThread io;
  auto o = options();
  o->keepAliveInterval = 200ms;
  auto connection = Connection::create(io.executor(), addressOf(broker), o);
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0));
  auto pingAfter = pinged.get_future().get();
  auto dropAfter = dropped.get_future().get();
  EXPECT_GE(pingAfter, 150ms);
  EXPECT_GE(dropAfter, 350ms);
  auto response = responses.wait(0);
  EXPECT_EQ(response.status.code, errc::connection_lost);
  EXPECT_NE(response.status.message.find("keep-alive"), std::string::npos)
      << response.status.message;
  connection->close();
}

TEST(PulsarConnection, RequestsWaitForAConnectionUntilTheirTimeout) {
  // Nobody listens at first: the port of a broker that was just closed.
  int port;
  {
    FakeBroker gone({});
    port = std::stoi(gone.url().substr(gone.url().rfind(':') + 1));
  }
  IoThread io;
  BrokerAddress address;
  ASSERT_TRUE(BrokerAddress::direct("pulsar://127.0.0.1:" + std::to_string(port), address).ok());
  auto connection = Connection::create(io.executor(), address, options());
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0),
                      300ms);
  auto response = responses.wait(0);
  // Never sent: the broker is the news (its address, why, how long), not the request.
  EXPECT_EQ(response.status.code, errc::connection_lost) << response.status.message;
  EXPECT_NE(response.status.message.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << response.status.message;
  EXPECT_NE(response.status.message.find("within 300 ms"), std::string::npos)
      << response.status.message;
  EXPECT_TRUE(connection->usable()) << "a refused connection is retried";
  connection->close();
}

// A handle that gives up on a session (a producer whose message the broker refused) drops it:
// the session ends once — its requests fail, its listeners hear of it — and the connection comes
// back with a new one. Dropping the current session used to reset it under its own feet.
TEST(PulsarConnection, ADroppedSessionEndsOnceAndANewOneFollows) {
  FakeBroker broker({[&](FakePeer& peer) {
                       peer.acceptConnect();
                       auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
                       peer.write(lookupAnswer(lookup.request_id()));
                       peer.waitForClose();  // the second lookup stays unanswered
                     },
                     [&](FakePeer& peer) {
                       peer.acceptConnect();
                       auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
                       peer.write(lookupAnswer(lookup.request_id()));
                       peer.waitForClose();
                     }});
  IoThread io;
  auto connectionOptions = options();
  connectionOptions->metrics = std::make_shared<MetricsRegistry>();
  auto connection = Connection::create(io.executor(), addressOf(broker), connectionOptions);
  auto listener = std::make_shared<RecordingListener>();
  connection->attach(Connection::Kind::producer, 3, listener);
  Responses responses;
  auto lookUp = [&](int index) {
    auto id = connection->newRequestId();
    connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t",
                        responses.callback(index));
  };
  lookUp(0);
  auto first = responses.wait(0);
  ASSERT_TRUE(first.status.ok()) << first.status.message;
  lookUp(1);
  connection->drop(first.session, Status(errc::broker_error, "message 7 refused"));
  auto failed = responses.wait(1);
  EXPECT_EQ(failed.status.code, errc::connection_lost) << failed.status.message;
  EXPECT_NE(failed.status.message.find("message 7 refused"), std::string::npos)
      << failed.status.message;
  ASSERT_TRUE(listener->waitFor([&] { return listener->lost.size() == 1; }));
  connection->drop(first.session, Status(errc::broker_error, "an older session"));  // no effect
  lookUp(2);
  auto second = responses.wait(2);
  ASSERT_TRUE(second.status.ok()) << second.status.message;
  EXPECT_EQ(second.session, first.session + 1);
  EXPECT_EQ(listener->lost.size(), 1u);
  EXPECT_EQ(connectionOptions->metrics->snapshot().counter(
                "reconsume.client.reconnects", {{"server.address", addressOf(broker).key()}}),
            1u)
      << "the second session is a reconnect, the first is not";
  connection->close();
}

}  // namespace
}  // namespace reconsume::detail::pulsar

namespace reconsume::detail::pulsar {
namespace {

using namespace connection_test;

// ClientOptions::connectionTimeout bounds how long a request waits for a session: with a broker
// that refuses connections it fails after that long (on the injected clock) — not after its own
// operation timeout — naming the broker, not the request, and marked so that callers retrying
// within a deadline stop (Status::retriesExhausted).
TEST(PulsarConnection, ARequestWaitsForAConnectionAtMostTheConnectionTimeout) {
  RefusingPort port;
  auto clock = std::make_shared<ManualSteadyClock>();
  auto o = options();
  o->clock = clock;
  o->connectionTimeout = 2s;
  o->operationTimeout = 30s;
  IoThread io;
  BrokerAddress address;
  ASSERT_TRUE(BrokerAddress::direct("pulsar://" + port.hostPort(), address).ok());
  auto connection = Connection::create(io.executor(), address, o);
  Responses responses;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("t", id), "LOOKUP t", responses.callback(0));
  // The request's deadline and the backoff after the first refused attempt.
  ASSERT_TRUE(clock->waitForPendingWaits(2, 5s));
  clock->advance(1900ms);
  clock->advance(100ms);
  auto response = responses.wait(0);
  EXPECT_EQ(response.status.code, errc::connection_lost) << response.status.message;
  EXPECT_TRUE(response.status.retriesExhausted);
  EXPECT_NE(response.status.message.find(port.hostPort()), std::string::npos)
      << response.status.message;
  EXPECT_NE(response.status.message.find("within 2000 ms"), std::string::npos)
      << response.status.message;
  EXPECT_EQ(response.status.message.find("LOOKUP"), std::string::npos) << response.status.message;
  connection->close();
}

}  // namespace
}  // namespace reconsume::detail::pulsar
