// Service URLs: embedded://[name][?option=value...], pulsar://host[:port][,host[:port]...],
// pulsar+ssl://host[:port][,host[:port]...], and for Admin http://host[:port], https://host[:port].
// Several hosts (the brokers of one cluster, as the Java client takes them) only for pulsar:// and
// pulsar+ssl://; a host without a port gets the scheme's default port.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace reconsume::detail {

struct ServiceUrl {
  enum class Kind { embedded, pulsar, pulsarTls, http, https };
  Kind kind{Kind::embedded};
  std::string text;  // as given
  std::string host;  // pulsar/http: the (first) host; embedded: the broker's name ("" = default)
  std::uint16_t port{0};  // of the first host
  struct Host {
    std::string host;
    std::uint16_t port{0};
  };
  std::vector<Host> hosts;  // pulsar: every host, in the order given; http: the one host
  std::map<std::string, std::string> options;  // the query (embedded broker settings)

  // Throws Error(errc::invalid_argument) naming the URL for an unknown scheme, a missing host
  // (pulsar, http), a malformed port or query, or several hosts where only one is allowed.
  static ServiceUrl parse(std::string_view url);
};

}  // namespace reconsume::detail
