// The connection loop against a scripted peer speaking exact bytes: handshake, requests and
// their answers, routing to listeners, timeouts, close, tokens, keep-alive, and corrupt input
// (bad checksum, truncation, oversize), after which the session ends and a new one is made.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <future>
#include <mutex>

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "pulsar/connection.hpp"
#include "pulsar_fake_broker.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

// An io_context with a thread, as the client runs one.
class IoThread {
 public:
  IoThread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }
  boost::asio::any_io_executor executor() { return io_.get_executor(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

// Collects the responses of requests; each must come exactly once.
class Responses {
 public:
  ResponseCallback callback(int index) {
    return [this, index](Response response) {
      std::lock_guard lock(mutex_);
      auto [it, fresh] = got_.emplace(index, std::move(response));
      EXPECT_TRUE(fresh) << "request " << index << " completed twice";
      changed_.notify_all();
    };
  }
  Response wait(int index, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return got_.contains(index); })) {
      ADD_FAILURE() << "request " << index << " did not complete";
      return {};
    }
    return got_.at(index);
  }
  std::size_t count() {
    std::lock_guard lock(mutex_);
    return got_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int, Response> got_;
};

class RecordingListener : public Connection::Listener {
 public:
  void onFrame(detail::protocol::Frame frame) override {
    std::lock_guard lock(mutex_);
    frames.push_back(std::move(frame));
    changed_.notify_all();
  }
  void onSessionLost(std::uint64_t session, const Status& why) override {
    std::lock_guard lock(mutex_);
    lost.push_back(why);
    changed_.notify_all();
  }
  bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, condition);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<detail::protocol::Frame> frames;
  std::vector<Status> lost;
};

std::shared_ptr<ConnectionOptions> options() {
  auto o = std::make_shared<ConnectionOptions>();
  o->connectionTimeout = 2s;
  o->operationTimeout = 5s;
  o->keepAliveInterval = 30s;
  o->backoff.initial = 10ms;
  o->backoff.max = 50ms;
  o->log = Log(
      [](LogLevel, std::string_view m) {
        if (std::getenv("PULSAR_TEST_LOG")) fprintf(stderr, "log: %.*s\n", (int)m.size(), m.data());
      },
      LogLevel::debug);
  return o;
}

BrokerAddress addressOf(const FakeBroker& broker) {
  BrokerAddress address;
  EXPECT_TRUE(BrokerAddress::direct(broker.url(), address).ok());
  return address;
}

proto::BaseCommand lookupAnswer(std::uint64_t requestId) {
  proto::BaseCommand answer;
  answer.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  auto& response = *answer.mutable_lookuptopicresponse();
  response.set_request_id(requestId);
  response.set_response(proto::CommandLookupTopicResponse::Connect);
  response.set_brokerserviceurl("pulsar://broker-1:6650");
  return answer;
}

proto::BaseCommand messageCommand(std::uint64_t consumerId, std::uint64_t entry) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  command.mutable_message()->set_consumer_id(consumerId);
  command.mutable_message()->mutable_message_id()->set_ledgerid(5);
  command.mutable_message()->mutable_message_id()->set_entryid(entry);
  return command;
}

std::string messageFrame(std::uint64_t consumerId, std::uint64_t entry, std::string payload) {
  proto::MessageMetadata metadata;
  metadata.set_producer_name("p");
  metadata.set_sequence_id(entry);
  metadata.set_publish_time(1'700'000'000'000);
  std::string out;
  detail::protocol::appendPayloadFrame(out, messageCommand(consumerId, entry), metadata, payload);
  return out;
}

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

// SPEC.md section 5: a corrupt frame ends the session — nothing of it reaches a listener, what
// waited on it fails as connection_lost — and the next session gets the message again.
TEST(PulsarConnection, CorruptFrameEndsTheSessionAndTheNextOneDeliversAgain) {
  std::vector<FakeBroker::Script> scripts;
  scripts.push_back([](FakePeer& peer) {
    peer.acceptConnect();
    peer.expect(proto::BaseCommand::LOOKUP);  // left unanswered: it must fail
    peer.write(messageFrame(3, 1, "good"));
    auto corrupt = messageFrame(3, 2, "flipped");
    corrupt.back() ^= 0x01;  // the payload no longer matches its CRC32C
    peer.write(corrupt);
    EXPECT_TRUE(peer.waitForClose());
  });
  scripts.push_back([](FakePeer& peer) {
    peer.acceptConnect();
    auto lookup = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    peer.write(lookupAnswer(lookup.request_id()));
    peer.write(messageFrame(3, 2, "flipped"));  // the broker redelivers it intact
    peer.waitForClose();
  });
  FakeBroker broker(std::move(scripts));
  IoThread io;
  auto connection = Connection::create(io.executor(), addressOf(broker), options());
  auto listener = std::make_shared<RecordingListener>();
  connection->attach(Connection::Kind::consumer, 3, listener);
  Responses responses;
  auto first = connection->newRequestId();
  connection->request(first, detail::protocol::lookup("t", first), "LOOKUP t",
                      responses.callback(0));
  auto lost = responses.wait(0);
  EXPECT_EQ(lost.status.code, errc::connection_lost);
  EXPECT_NE(lost.status.message.find("checksum"), std::string::npos) << lost.status.message;
  ASSERT_TRUE(listener->waitFor([&] { return listener->lost.size() == 1; }));
  ASSERT_EQ(listener->frames.size(), 1u);
  EXPECT_EQ(listener->frames[0].payload, "good");

  // Listeners are per session: the consumer attaches again, as it does after resubscribing.
  connection->attach(Connection::Kind::consumer, 3, listener);
  auto second = connection->newRequestId();
  connection->request(second, detail::protocol::lookup("t", second), "LOOKUP t",
                      responses.callback(1));
  auto answered = responses.wait(1);
  EXPECT_TRUE(answered.status.ok()) << answered.status.message;
  EXPECT_EQ(answered.session, 2u);
  ASSERT_TRUE(listener->waitFor([&] { return listener->frames.size() == 2; }));
  EXPECT_EQ(listener->frames[1].payload, "flipped");
  EXPECT_EQ(broker.accepted(), 2);
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
  EXPECT_EQ(response.status.code, errc::timeout);
  EXPECT_NE(response.status.message.find("is down"), std::string::npos) << response.status.message;
  EXPECT_TRUE(connection->usable()) << "a refused connection is retried";
  connection->close();
}

}  // namespace
}  // namespace reconsume::detail::pulsar
