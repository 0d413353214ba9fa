#include "common/service_url.hpp"

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

ServiceUrl ServiceUrl::parse(std::string_view text) {
  auto parsed = boost::urls::parse_uri(text);
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
  if (url.has_port()) {
    std::string_view port = url.port();
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      fail(text, "port '" + std::string(port) + "' is not a number in 1..65535");
    }
    result.port = static_cast<std::uint16_t>(value);
  } else {
    result.port = defaultPort;
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
