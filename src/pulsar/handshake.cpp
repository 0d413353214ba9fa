#include "pulsar/handshake.hpp"

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"

namespace reconsume::detail::pulsar {
namespace {

Status readCredentials(const Credentials& credentials, std::string& data) {
  if (!credentials.enabled()) return {};
  try {
    data = credentials.current ? credentials.current() : std::string();
    return {};
  } catch (const std::exception& e) {
    return Status(errc::authentication,
                  "the " + credentials.method + " supplier failed: " + std::string(e.what()));
  } catch (...) {
    return Status(errc::authentication, "the " + credentials.method + " supplier failed");
  }
}

}  // namespace

Credentials Credentials::token(std::string fixed) {
  return Credentials{"token", [fixed = std::move(fixed)] { return fixed; }};
}

Credentials Credentials::tokenFrom(std::function<std::string()> supplier) {
  return Credentials{"token", std::move(supplier)};
}

Handshake::Handshake(Credentials credentials, std::string proxyToBrokerUrl)
    : credentials_(std::move(credentials)), proxyToBrokerUrl_(std::move(proxyToBrokerUrl)) {}

Status Handshake::start(std::string& out) {
  protocol::ConnectRequest request;
  if (credentials_.enabled()) {
    request.authMethodName = credentials_.method;
    if (auto status = readCredentials(credentials_, request.authData); !status.ok()) return status;
  }
  request.proxyToBrokerUrl = proxyToBrokerUrl_;
  protocol::appendFrame(out, protocol::connect(request));
  return {};
}

Status Handshake::answerChallenge(const Credentials& credentials, int protocolVersion,
                                  std::string& out) {
  std::string data;
  if (auto status = readCredentials(credentials, data); !status.ok()) return status;
  protocol::appendFrame(
      out, protocol::authResponse(
               credentials.method, data,
               protocolVersion > 0 ? protocolVersion : protocol::kProtocolVersion));
  return {};
}

Handshake::Step Handshake::onFrame(const protocol::Frame& frame) {
  Step step;
  const auto& command = frame.command;
  switch (command.type()) {
    case proto::BaseCommand::CONNECTED: {
      ConnectedInfo info;
      info.serverVersion = command.connected().server_version();
      info.protocolVersion = command.connected().protocol_version();
      if (command.connected().has_max_message_size() &&
          command.connected().max_message_size() > 0) {
        info.maxMessageSize = static_cast<std::uint32_t>(command.connected().max_message_size());
      }
      step.connected = std::move(info);
      return step;
    }
    case proto::BaseCommand::AUTH_CHALLENGE:
      step.status =
          answerChallenge(credentials_, command.authchallenge().protocol_version(), step.write);
      return step;
    case proto::BaseCommand::ERROR:
      step.status =
          protocol::serverError(command.error().error(), command.error().message());
      return step;
    case proto::BaseCommand::PING:
      protocol::appendFrame(step.write, protocol::pong());
      return step;
    default:
      step.status = Status(
          errc::protocol_error,
          "the broker sent " + proto::BaseCommand::Type_Name(command.type()) + " before CONNECTED");
      return step;
  }
}

}  // namespace reconsume::detail::pulsar
