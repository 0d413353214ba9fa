#include "common/service_url.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace reconsume::detail
