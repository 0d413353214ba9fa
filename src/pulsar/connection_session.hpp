// One session of a Connection: the socket, the decoder of what it reads, the frames waiting to
// be written, and its keep-alive. Private to the connection's source files.
//
// Thread safety: used on the connection's strand only.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <string>

#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "pulsar/byte_stream.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/health_check.hpp"
#include "pulsar/outbox.hpp"

namespace reconsume::detail::pulsar {

struct Connection::Session {
  Session(boost::asio::any_io_executor executor, const BrokerAddress& address,
          const ConnectionOptions& options)
      : stream(executor, address, options.tls, options.verifyHostname),
        writeWake(executor),
        healthTimer(executor, options.clock),
        health(options.keepAliveInterval) {}

  std::uint64_t id = 0;
  ByteStream stream;
  protocol::FrameDecoder decoder;
  // Frames waiting for the writer. Bounded by what may be in flight: producers' admitted
  // messages, requests, permits and acknowledgements (SPEC.md section 6).
  Outbox outbox;
  boost::asio::steady_timer writeWake;  // an event: the writer waits on it for frames
  Timer healthTimer;
  HealthCheck health;
  int protocolVersion = protocol::kProtocolVersion;
  bool up = false;
  bool ended = false;
  bool writing = false;
};

}  // namespace reconsume::detail::pulsar
