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

TEST(ServiceUrl, RejectsBadUrlsNamingThem) {
  for (const char* url : {"kafka://localhost:9092", "pulsar://", "pulsar://host:0",
                          "pulsar://host:99999", "not a url", "pulsar://host/path"}) {
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
