#include "pulsar/broker_address.hpp"

#include "common/service_url.hpp"

namespace reconsume::detail::pulsar {

Status BrokerAddress::direct(const std::string& url, BrokerAddress& out) {
  return proxied(url, url, out);
}

Status BrokerAddress::proxied(const std::string& logical, const std::string& proxy,
                              BrokerAddress& out) {
  ServiceUrl parsed;
  try {
    parsed = ServiceUrl::parse(proxy);
  } catch (const std::exception& e) {
    return Status(errc::protocol_error, "unusable broker URL '" + proxy + "': " + e.what());
  }
  if (parsed.kind != ServiceUrl::Kind::pulsar && parsed.kind != ServiceUrl::Kind::pulsarTls) {
    return Status(errc::protocol_error,
                  "broker URL '" + proxy + "' is not pulsar:// or pulsar+ssl://");
  }
  out.logical = logical;
  out.physical = proxy;
  out.tls = parsed.kind == ServiceUrl::Kind::pulsarTls;
  out.host = parsed.host;
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  out.port = parsed.port;
  return {};
}

}  // namespace reconsume::detail::pulsar
