#include <gtest/gtest.h>

#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol_test_util.hpp"
#include "pulsar/handshake.hpp"

namespace reconsume::detail::pulsar {
namespace {

using detail::protocol::test::bytes;
using detail::protocol::test::hex;

detail::protocol::Frame decodeOne(const std::string& stream) {
  detail::protocol::FrameDecoder decoder;
  decoder.feed(stream);
  auto result = decoder.next();
  EXPECT_TRUE(result.hasFrame());
  return result.hasFrame() ? std::move(result.frame()) : detail::protocol::Frame{};
}

detail::protocol::Frame frameOf(const proto::BaseCommand& command) {
  return decodeOne(detail::protocol::encodeFrame(command));
}

TEST(PulsarHandshake, ConnectWithoutCredentialsIsExactlyTheseBytes) {
  Handshake handshake(Credentials::none());
  std::string out;
  ASSERT_TRUE(handshake.start(out).ok());
  // CONNECT: client_version "reconsume 0.1", protocol_version 21, feature flags auth refresh and
  // broker entry metadata.
  EXPECT_EQ(hex(out), hex(bytes("00 00 00 1f 00 00 00 1b 08 02 12 17 0a 0d 72 65 63 6f 6e 73 75"
                                "6d 65 20 30 2e 31 20 15 52 04 08 01 10 01")));
}

TEST(PulsarHandshake, TokenAndProxyTargetGoIntoConnect) {
  Handshake handshake(Credentials::token("jwt.abc"), "pulsar://broker-2:6650");
  std::string out;
  ASSERT_TRUE(handshake.start(out).ok());
  auto connect = decodeOne(out).command.connect();
  EXPECT_EQ(connect.auth_method_name(), "token");
  EXPECT_EQ(connect.auth_data(), "jwt.abc");
  EXPECT_EQ(connect.proxy_to_broker_url(), "pulsar://broker-2:6650");
}

TEST(PulsarHandshake, ConnectedEndsItWithTheBrokersMaximumMessageSize) {
  Handshake handshake(Credentials::none());
  proto::BaseCommand connected;
  connected.set_type(proto::BaseCommand::CONNECTED);
  connected.mutable_connected()->set_server_version("Pulsar Server4.0.8");
  connected.mutable_connected()->set_protocol_version(21);
  connected.mutable_connected()->set_max_message_size(1048576);
  auto step = handshake.onFrame(frameOf(connected));
  ASSERT_TRUE(step.status.ok());
  ASSERT_TRUE(step.connected);
  EXPECT_EQ(step.connected->maxMessageSize, 1048576u);
  EXPECT_EQ(step.connected->serverVersion, "Pulsar Server4.0.8");
  EXPECT_TRUE(step.write.empty());

  connected.mutable_connected()->clear_max_message_size();
  EXPECT_EQ(handshake.onFrame(frameOf(connected)).connected->maxMessageSize, 5u * 1024 * 1024)
      << "Pulsar's default when the broker does not say";
}

TEST(PulsarHandshake, ChallengeIsAnsweredWithCredentialsReadAgain) {
  int reads = 0;
  Handshake handshake(Credentials::tokenFrom([&] { return "t" + std::to_string(++reads); }));
  std::string out;
  ASSERT_TRUE(handshake.start(out).ok());
  proto::BaseCommand challenge;
  challenge.set_type(proto::BaseCommand::AUTH_CHALLENGE);
  challenge.mutable_authchallenge()->set_protocol_version(21);
  auto step = handshake.onFrame(frameOf(challenge));
  ASSERT_TRUE(step.status.ok());
  EXPECT_FALSE(step.connected);
  auto response = decodeOne(step.write).command;
  ASSERT_EQ(response.type(), proto::BaseCommand::AUTH_RESPONSE);
  EXPECT_EQ(response.authresponse().response().auth_method_name(), "token");
  EXPECT_EQ(response.authresponse().response().auth_data(), "t2");
}

TEST(PulsarHandshake, RefusalsAndSurprisesFailTheAttempt) {
  Handshake handshake(Credentials::none());
  proto::BaseCommand error;
  error.set_type(proto::BaseCommand::ERROR);
  error.mutable_error()->set_request_id(0);
  error.mutable_error()->set_error(proto::AuthenticationError);
  error.mutable_error()->set_message("Unable to authenticate: invalid signature");
  auto refused = handshake.onFrame(frameOf(error));
  EXPECT_EQ(refused.status.code, errc::authentication);
  EXPECT_NE(refused.status.message.find("invalid signature"), std::string::npos)
      << refused.status.message;

  proto::BaseCommand early;
  early.set_type(proto::BaseCommand::SUCCESS);
  early.mutable_success()->set_request_id(1);
  auto surprise = handshake.onFrame(frameOf(early));
  EXPECT_EQ(surprise.status.code, errc::protocol_error);
  EXPECT_NE(surprise.status.message.find("SUCCESS"), std::string::npos);

  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  EXPECT_EQ(hex(handshake.onFrame(frameOf(ping)).write),
            hex(bytes("00 00 00 09 00 00 00 05 08 13 9a 01 00")));
}

TEST(PulsarHandshake, ASupplierThatThrowsIsAnAuthenticationFailure) {
  Handshake handshake(
      Credentials::tokenFrom([]() -> std::string { throw std::runtime_error("vault sealed"); }));
  std::string out;
  auto status = handshake.start(out);
  EXPECT_EQ(status.code, errc::authentication);
  EXPECT_NE(status.message.find("vault sealed"), std::string::npos) << status.message;
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace reconsume::detail::pulsar
