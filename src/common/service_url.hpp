// Service URLs: embedded://[name][?option=value...], pulsar://host[:port],
// pulsar+ssl://host[:port], and for Admin http://host[:port], https://host[:port].
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace reconsume::detail {

struct ServiceUrl {
  enum class Kind { embedded, pulsar, pulsarTls, http, https };
  Kind kind{Kind::embedded};
  std::string text;  // as given
  std::string host;  // pulsar/http: the host; embedded: the broker's name ("" for the default)
  std::uint16_t port{0};
  std::map<std::string, std::string> options;  // the query (embedded broker settings)

  // Throws Error(errc::invalid_argument) naming the URL for an unknown scheme, a missing host
  // (pulsar, http) or a malformed port or query.
  static ServiceUrl parse(std::string_view url);
};

}  // namespace reconsume::detail
