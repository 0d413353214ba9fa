// libFuzzer target: service URLs (ServiceUrl::parse): what applications, configuration files and
// the command line pass as pulsar://, pulsar+ssl://, http(s):// or embedded:// addresses.
//
// Input: the text. Besides "no crash", it aborts when
//   - parse throws anything but Error(errc::invalid_argument);
//   - a parsed URL's kind does not match its scheme, it keeps another text than the input, or a
//     network URL has no host or port 0;
//   - a network URL written back as <scheme>://<host>:<port> does not parse to the same kind,
//     host and port;
//   - its host list does not start with that host and port, holds a host without a name or with
//     port 0, or holds several hosts for another scheme than pulsar:// and pulsar+ssl://.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/service_url.hpp"
#include "fuzz_check.hpp"

using reconsume::detail::ServiceUrl;
using reconsume::fuzz::accepts;
using reconsume::fuzz::check;

namespace {

std::string_view schemeOf(ServiceUrl::Kind kind) {
  switch (kind) {
    case ServiceUrl::Kind::embedded:
      return "embedded";
    case ServiceUrl::Kind::pulsar:
      return "pulsar";
    case ServiceUrl::Kind::pulsarTls:
      return "pulsar+ssl";
    case ServiceUrl::Kind::http:
      return "http";
    case ServiceUrl::Kind::https:
      return "https";
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ServiceUrl url;
  if (!accepts([&] { url = ServiceUrl::parse(text); })) return 0;
  check(url.text == text, "the parsed URL keeps another text");
  const std::string_view scheme = schemeOf(url.kind);
  check(text.starts_with(scheme) && text.size() > scheme.size() && text[scheme.size()] == ':',
        "the kind is not the scheme");
  if (url.kind == ServiceUrl::Kind::embedded) return 0;
  check(!url.host.empty(), "a network URL without a host");
  check(url.port != 0, "a network URL with port 0");

  const std::string canonical =
      std::string(scheme) + "://" + url.host + ":" + std::to_string(url.port);
  ServiceUrl again;
  check(accepts([&] { again = ServiceUrl::parse(canonical); }),
        "scheme://host:port of a parsed URL does not parse");
  check(again.kind == url.kind && again.host == url.host && again.port == url.port,
        "scheme://host:port of a parsed URL parses differently");

  check(!url.hosts.empty() && url.hosts[0].host == url.host && url.hosts[0].port == url.port,
        "the host list does not start with the host");
  check(url.hosts.size() == 1 || url.kind == ServiceUrl::Kind::pulsar ||
            url.kind == ServiceUrl::Kind::pulsarTls,
        "several hosts for a scheme that takes one");
  for (const auto& host : url.hosts) {
    check(!host.host.empty() && host.port != 0, "a host without a name or with port 0");
  }
  return 0;
}
