// ClientOptions::metricsListen: the endpoint answers GET /metrics in Prometheus's text format,
// listens on loopback unless told otherwise, names a bad or busy address, and stops with the
// client. (tests/behaviour/metrics_test.cpp reads it with Prometheus's own parser.)
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <string>

#include "expect_error.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using reconsume::testing::invalidArgumentText;
using reconsume::testing::mentions;

// One HTTP/1.0 exchange with `address` (host:port): the whole answer, or "" when refused.
std::string httpGetAnswer(const std::string& address, const std::string& request) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  auto colon = address.rfind(':');
  boost::system::error_code ec;
  socket.connect({boost::asio::ip::make_address(address.substr(0, colon)),
                  static_cast<unsigned short>(std::stoi(address.substr(colon + 1)))},
                 ec);
  if (ec) return "";
  boost::asio::write(socket, boost::asio::buffer(request));
  std::string answer;
  boost::asio::read(socket, boost::asio::dynamic_buffer(answer), ec);  // until the server closes
  return answer;
}

Client withEndpoint(const std::string& listen, bool allowRemote = false) {
  ClientOptions options;
  options.metricsListen = listen;
  options.metricsAllowRemote = allowRemote;
  return Client::connect("embedded://metrics-endpoint", options);
}

TEST(MetricsEndpoint, ServesThePrometheusTextAndNothingElse) {
  auto client = withEndpoint("127.0.0.1:0");
  auto address = client.metricsAddress();
  ASSERT_TRUE(mentions(address, "127.0.0.1:"));
  client.createProducer("persistent://public/default/served").send(std::string("x"));

  auto ok = httpGetAnswer(address, "GET /metrics HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(mentions(ok, "HTTP/1.0 200 OK")) << ok;
  EXPECT_TRUE(mentions(ok, "Content-Type: text/plain; version=0.0.4; charset=utf-8")) << ok;
  EXPECT_TRUE(mentions(ok,
                       "messaging_client_sent_messages_total{messaging_destination_name="
                       "\"persistent://public/default/served\",messaging_system=\"pulsar\"} 1"))
      << ok;
  EXPECT_TRUE(mentions(httpGetAnswer(address, "GET /other HTTP/1.0\r\n\r\n"), "404 Not Found"));
  EXPECT_TRUE(
      mentions(httpGetAnswer(address, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n"),
               "405 Method Not Allowed"));
  httpGetAnswer(address, "not http at all\r\n\r\n");
  EXPECT_TRUE(mentions(httpGetAnswer(address, "GET /metrics HTTP/1.0\r\n\r\n"), "200 OK"))
      << "still serving after a request that does not parse";

  client.close();
  EXPECT_EQ(httpGetAnswer(address, "GET /metrics HTTP/1.0\r\n\r\n"), "")
      << "stopped with the client";
  EXPECT_EQ(client.metrics().counter("messaging.client.sent.messages"), 1u)
      << "the snapshot still answers after close";
}

TEST(MetricsEndpoint, ABadAddressIsNamedAndARemoteOneNeedsConsent) {
  for (const char* bad : {"9464", "127.0.0.1:99999", "127.0.0.1:port", "example.com:9464"}) {
    auto message = invalidArgumentText([&] { withEndpoint(bad); });
    EXPECT_TRUE(mentions(message, "metricsListen '" + std::string(bad) + "'"));
  }
  auto message = invalidArgumentText([] { withEndpoint("0.0.0.0:0"); });
  EXPECT_TRUE(mentions(message, "metricsAllowRemote"));
  auto remote = withEndpoint("0.0.0.0:0", /*allowRemote=*/true);
  EXPECT_TRUE(mentions(remote.metricsAddress(), "0.0.0.0:"));
  auto loopback = withEndpoint(":0");
  EXPECT_TRUE(mentions(loopback.metricsAddress(), "127.0.0.1:"));
  EXPECT_EQ(Client::connect("embedded://no-endpoint").metricsAddress(), "");
}

TEST(MetricsEndpoint, AnAddressInUseIsNamed) {
  auto first = withEndpoint("127.0.0.1:0");
  auto taken = first.metricsAddress();
  try {
    withEndpoint(taken);
    ADD_FAILURE() << "a second endpoint listened on " << taken;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::unavailable);
    EXPECT_TRUE(mentions(e.what(), taken));
  }
}

TEST(MetricsEndpoint, AClosedClientsAddressCanBeListenedOnAtOnce) {
  auto first = withEndpoint("127.0.0.1:0");
  auto address = first.metricsAddress();
  // Scraped before each close: the served connections linger in TIME_WAIT on the port.
  EXPECT_TRUE(mentions(httpGetAnswer(address, "GET /metrics HTTP/1.0\r\n\r\n"), "200 OK"));
  first.close();
  // Restarting a service with the same metricsListen: close returned, so the address is free.
  for (int round = 0; round < 20; ++round) {
    auto next = withEndpoint(address);
    EXPECT_EQ(next.metricsAddress(), address);
    EXPECT_TRUE(mentions(httpGetAnswer(address, "GET /metrics HTTP/1.0\r\n\r\n"), "200 OK"));
    next.close();
  }
}

}  // namespace
}  // namespace reconsume
