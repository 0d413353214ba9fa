#include "common/service_url.hpp"

#include <boost/url/authority_view.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

[[noreturn]] void fail(std::string_view url, std::string_view why) {
  throw Error(errc::invalid_argument,
              "service URL '" + std::string(url) + "' is invalid: " + std::string(why));
}

}  // namespace

namespace {

// "scheme://a:1,b:2/rest" -> the authorities {"a:1", "b:2"} and "scheme://a:1/rest" (what
// boost::urls parses: a comma is legal in a host name, so "a:1,b:2" would be one bad port).
struct SplitHosts {
  std::vector<std::string> authorities;
  std::string firstUrl;
};

SplitHosts splitHosts(std::string_view text) {
  SplitHosts split;
  auto start = text.find("://");
  if (start == std::string_view::npos) {
    split.firstUrl = std::string(text);
    return split;
  }
  start += 3;
  auto end = text.find_first_of("/?#", start);
  if (end == std::string_view::npos) end = text.size();
  std::string_view authority = text.substr(start, end - start);
  for (std::size_t from = 0;;) {
    auto comma = authority.find(',', from);
    split.authorities.emplace_back(authority.substr(from, comma - from));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  split.firstUrl = std::string(text.substr(0, start)) + split.authorities.front() +
                   std::string(text.substr(end));
  return split;
}

std::uint16_t portOf(std::string_view url, std::string_view port) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
    fail(url, "port '" + std::string(port) + "' is not a number in 1..65535");
  }
  return static_cast<std::uint16_t>(value);
}

}  // namespace

ServiceUrl ServiceUrl::parse(std::string_view text) {
  auto split = splitHosts(text);
  auto parsed = boost::urls::parse_uri(split.firstUrl);
  if (!parsed) fail(text, "it is not a URL (" + parsed.error().message() + ")");
  const boost::urls::url_view& url = *parsed;

  ServiceUrl result;
  result.text = std::string(text);
  std::string scheme(url.scheme());
  std::uint16_t defaultPort = 0;
  if (scheme == "embedded") {
    result.kind = Kind::embedded;
  } else if (scheme == "pulsar") {
    result.kind = Kind::pulsar;
    defaultPort = 6650;
  } else if (scheme == "pulsar+ssl") {
    result.kind = Kind::pulsarTls;
    defaultPort = 6651;
  } else if (scheme == "http") {
    result.kind = Kind::http;
    defaultPort = 8080;
  } else if (scheme == "https") {
    result.kind = Kind::https;
    defaultPort = 8443;
  } else {
    fail(text,
         "unknown scheme '" + scheme + "' (expected embedded, pulsar, pulsar+ssl, http or https)");
  }

  result.host = std::string(url.encoded_host());
  if (result.kind != Kind::embedded) {
    if (result.host.empty()) fail(text, "it names no host");
    if (!url.encoded_path().empty() && url.encoded_path() != "/") {
      fail(text, "a path is not expected");
    }
  }
  result.port = url.has_port() ? portOf(text, url.port()) : defaultPort;
  if (result.kind != Kind::embedded) result.hosts.push_back({result.host, result.port});
  if (split.authorities.size() > 1) {
    if (result.kind != Kind::pulsar && result.kind != Kind::pulsarTls) {
      fail(text, "several hosts are for pulsar:// and pulsar+ssl:// only");
    }
    for (std::size_t i = 1; i < split.authorities.size(); ++i) {
      auto one = boost::urls::parse_authority(split.authorities[i]);
      if (!one || one->has_userinfo() || one->encoded_host().empty()) {
        fail(text, "host '" + split.authorities[i] + "' is not host[:port]");
      }
      result.hosts.push_back({std::string(one->encoded_host()),
                              one->has_port() ? portOf(text, one->port()) : defaultPort});
    }
  }
  // An empty query has no options. Not iterating it also avoids a read past the end of the text
  // in Boost.URL 1.81, whose parameter iterator overruns an empty query followed by a fragment
  // ("pulsar://h?#x"; found by tests/fuzz/service_url_fuzzer.cpp).
  if (!url.encoded_query().empty()) {
    for (auto param : url.params()) {
      result.options[std::string(param.key)] = std::string(param.value);
    }
  }
  return result;
}

}  // namespace reconsume::detail
