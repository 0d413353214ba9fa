// The start of a session, sans I/O: CONNECT with the credentials, then whatever the broker
// answers until CONNECTED — an AUTH_CHALLENGE is answered with fresh credentials, an ERROR ends
// the attempt (AuthenticationError as errc::authentication with the broker's text).
//
//   Handshake handshake(options);
//   write(handshake.start());
//   for each frame read: auto step = handshake.onFrame(frame);
//     write(step.write) when not empty; stop at step.connected or a failed step.status.
//
// Thread safety: not synchronised; one Handshake per attempt, used by one strand.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/status.hpp"
#include "protocol/frame.hpp"

namespace reconsume::detail::pulsar {

// How this client authenticates: nothing, or a token (read again at every connection, so a
// rotated token is picked up).
struct Credentials {
  std::string method;                    // "" (none) or "token"
  std::function<std::string()> current;  // the data to send; may throw (reported as a failure)

  static Credentials none() { return {}; }
  static Credentials token(std::string fixed);
  static Credentials tokenFrom(std::function<std::string()> supplier);
  bool enabled() const { return !method.empty(); }
};

struct ConnectedInfo {
  std::string serverVersion;
  int protocolVersion{0};
  std::uint32_t maxMessageSize{protocol::kDefaultMaxMessageSize};
};

class Handshake {
 public:
  struct Step {
    std::string write;                       // bytes to send now (may be empty)
    std::optional<ConnectedInfo> connected;  // set: the session is up
    Status status;                           // failed: the attempt is over
  };

  // `proxyToBrokerUrl`: through a Pulsar proxy, the broker to reach ("pulsar://host:port").
  Handshake(Credentials credentials, std::string proxyToBrokerUrl = {});

  // The CONNECT frame; a failed status when the credentials could not be read.
  Status start(std::string& out);
  Step onFrame(const protocol::Frame& frame);

  // The AUTH_RESPONSE frame to an AUTH_CHALLENGE (also after the handshake: token refresh).
  static Status answerChallenge(const Credentials& credentials, int protocolVersion,
                                std::string& out);

 private:
  Credentials credentials_;
  std::string proxyToBrokerUrl_;
};

}  // namespace reconsume::detail::pulsar
