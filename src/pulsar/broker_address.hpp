// Where a connection goes: the broker that serves the topics (logical) and the host to open the
// socket to (physical) — the same, unless the lookup said to go through the service URL (a
// Pulsar proxy), which then forwards to the logical broker.
//
// Thread safety: a plain value.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.hpp"

namespace reconsume::detail::pulsar {

struct BrokerAddress {
  std::string logical;   // "pulsar://host:port" or "pulsar+ssl://host:port"
  std::string physical;  // the URL the socket connects to
  bool tls{false};       // of the physical URL
  std::string host;      // of the physical URL, IPv6 without brackets
  std::uint16_t port{0};

  bool throughProxy() const { return logical != physical; }
  std::string key() const { return throughProxy() ? logical + " via " + physical : logical; }

  // A direct connection to `url`; a failed Status (protocol_error) naming it when it is not a
  // pulsar:// or pulsar+ssl:// URL with a host.
  static Status direct(const std::string& url, BrokerAddress& out);
  // `logical` reached through `proxy` (the service URL).
  static Status proxied(const std::string& logical, const std::string& proxy, BrokerAddress& out);
};

}  // namespace reconsume::detail::pulsar
