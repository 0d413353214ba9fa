#include "common/service_url.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string_view>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

TEST(ServiceUrl, ParsesEachSchemeWithItsDefaultPort) {
  auto embedded = ServiceUrl::parse("embedded://");
  EXPECT_EQ(embedded.kind, ServiceUrl::Kind::embedded);
  EXPECT_EQ(embedded.host, "");

  auto named = ServiceUrl::parse("embedded://orders?maxMessageSize=4096");
  EXPECT_EQ(named.host, "orders");
  EXPECT_EQ(named.options.at("maxMessageSize"), "4096");

  auto plain = ServiceUrl::parse("pulsar://localhost");
  EXPECT_EQ(plain.kind, ServiceUrl::Kind::pulsar);
  EXPECT_EQ(plain.host, "localhost");
  EXPECT_EQ(plain.port, 6650);

  auto tls = ServiceUrl::parse("pulsar+ssl://broker.example.com:7777");
  EXPECT_EQ(tls.kind, ServiceUrl::Kind::pulsarTls);
  EXPECT_EQ(tls.port, 7777);
  EXPECT_EQ(ServiceUrl::parse("pulsar+ssl://b").port, 6651);
  EXPECT_EQ(ServiceUrl::parse("http://b").port, 8080);
}

// The brokers of one cluster, as the Java client takes them: each host with its port or the
// scheme's default.
TEST(ServiceUrl, APulsarUrlMayNameSeveralHosts) {
  auto url = ServiceUrl::parse("pulsar://b1:6660,b2,[::1]:6662/?x=1");
  ASSERT_EQ(url.hosts.size(), 3u);
  EXPECT_EQ(url.hosts[0].host, "b1");
  EXPECT_EQ(url.hosts[0].port, 6660);
  EXPECT_EQ(url.hosts[1].host, "b2");
  EXPECT_EQ(url.hosts[1].port, 6650);
  EXPECT_EQ(url.hosts[2].host, "[::1]");
  EXPECT_EQ(url.hosts[2].port, 6662);
  EXPECT_EQ(url.host, "b1");
  EXPECT_EQ(url.port, 6660);
  EXPECT_EQ(url.text, "pulsar://b1:6660,b2,[::1]:6662/?x=1");
  auto tls = ServiceUrl::parse("pulsar+ssl://a,b:7000");
  ASSERT_EQ(tls.hosts.size(), 2u);
  EXPECT_EQ(tls.hosts[0].port, 6651);
  EXPECT_EQ(tls.hosts[1].port, 7000);
  EXPECT_EQ(ServiceUrl::parse("pulsar://one").hosts.size(), 1u);
  EXPECT_TRUE(ServiceUrl::parse("embedded://").hosts.empty());
}

TEST(ServiceUrl, RejectsBadUrlsNamingThem) {
  for (const char* url :
       {"kafka://localhost:9092", "pulsar://", "pulsar://host:0", "pulsar://host:99999",
        "not a url", "pulsar://host/path", "pulsar://a,,b", "pulsar://a,b:0", "pulsar://a,u@b",
        "pulsar://,a", "http://a,b", "embedded://a,b"}) {
    try {
      ServiceUrl::parse(url);
      FAIL() << "accepted " << url;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(url), std::string::npos) << e.what();
    }
  }
}

// Found by tests/fuzz/service_url_fuzzer.cpp: an empty query followed by a fragment made
// Boost.URL 1.81's parameter iterator read past the end of the text (AddressSanitizer:
// heap-buffer-overflow); an empty query now has no options and is not iterated.
TEST(ServiceUrl, EmptyQueryBeforeAFragmentHasNoOptions) {
  for (const char* text : {"pulsar://h?#x", "pulsar://h?#", "embedded://?#", "pulsar://h?"}) {
    // Exactly the text's bytes on the heap, so that AddressSanitizer sees a read past them.
    const std::string_view view(text);
    const auto bytes = std::make_unique<char[]>(view.size());
    std::copy(view.begin(), view.end(), bytes.get());
    const auto url = ServiceUrl::parse(std::string_view(bytes.get(), view.size()));
    EXPECT_TRUE(url.options.empty()) << text;
  }
  EXPECT_EQ(ServiceUrl::parse("embedded://b?x=1#frag").options.at("x"), "1");
}

}  // namespace
}  // namespace reconsume::detail
