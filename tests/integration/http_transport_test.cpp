// The admin client's transport where Pulsar cannot be made to misbehave: refused connections,
// servers that never answer, redirects, bad configuration.
#include "admin/http_transport.hpp"

#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <thread>

#include "admin/http_admin.hpp"
#include "common/service_url.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/error.hpp"
#include "unit/expect_error.hpp"

namespace reconsume::integration {
namespace {

using reconsume::testing::thrownBy;

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::shared_ptr<detail::client::AdminBackend> adminAt(const std::string& url,
                                                      std::chrono::milliseconds timeout) {
  AdminOptions options = pulsar().adminOptions();
  options.timeout = timeout;
  return detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(url), options);
}

TEST(HttpAdminTransport, ARefusedConnectionIsConnectionLost) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto port = acceptor.local_endpoint().port();
  acceptor.close();  // nothing listens there any more

  std::string url = "http://127.0.0.1:" + std::to_string(port);
  Error error = thrownBy([&] { adminAt(url, std::chrono::seconds(10))->partitions("x"); });
  EXPECT_EQ(error.code(), errc::connection_lost) << error.what();
  EXPECT_TRUE(isRetryable(error.code()));
  EXPECT_NE(std::string(error.what()).find(std::to_string(port)), std::string::npos)
      << error.what();
}

TEST(HttpAdminTransport, AServerThatNeverAnswersIsATimeout) {
  asio::io_context io;
  // Listening but never accepting: the kernel completes the connection and takes the request,
  // nobody answers.
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::string url = "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());

  Error error = thrownBy([&] { adminAt(url, std::chrono::milliseconds(300))->partitions("x"); });
  EXPECT_EQ(error.code(), errc::timeout) << error.what();
  EXPECT_NE(std::string(error.what()).find("reading the response"), std::string::npos)
      << error.what();
}

TEST(HttpAdminTransport, FollowsARedirectToTheBroker) {
  auto real = adminAt(pulsar().adminUrl, std::chrono::seconds(30));
  std::string topic = uniqueTopic("redirect");
  real->createPartitionedTopic(topic, 4);

  // A one-shot server that sends every request on to the real admin API, as a broker that does
  // not own a topic does.
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  std::string seenRequest;
  std::thread server([&] {
    tcp::socket socket(io);
    acceptor.accept(socket);
    asio::streambuf buffer;
    asio::read_until(socket, buffer, "\r\n\r\n");
    seenRequest.assign(asio::buffers_begin(buffer.data()), asio::buffers_end(buffer.data()));
    std::string target = seenRequest.substr(4, seenRequest.find(' ', 4) - 4);  // after "GET "
    std::string answer = "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + pulsar().adminUrl +
                         target + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    asio::write(socket, asio::buffer(answer));
  });
  std::string url = "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  int partitions = -1;
  EXPECT_NO_THROW(partitions = adminAt(url, std::chrono::seconds(30))->partitions(topic));
  server.join();
  EXPECT_EQ(partitions, 4);
  EXPECT_EQ(seenRequest.rfind("GET /admin/v2/persistent/public/default/", 0), 0u) << seenRequest;
}

// Request::bodySink: a 2xx body in pieces, never whole (a broker's metrics are megabytes); an
// error's body still in the response, where the caller reads the broker's reason.
TEST(HttpAdminTransport, ABodySinkGetsA2xxBodyInPiecesAndAnErrorsBodyStaysInTheResponse) {
  auto endpoint = detail::admin::Endpoint::of(detail::ServiceUrl::parse(pulsar().adminUrl));
  AdminOptions options = pulsar().adminOptions();
  detail::admin::Transport transport(options.tls, options.token);
  auto get = [&](const std::string& target, std::vector<std::string>* pieces) {
    detail::admin::Request request;
    request.target = target;
    if (pieces) {
      request.bodySink = [pieces](std::string_view piece) { pieces->emplace_back(piece); };
    }
    detail::admin::Response response;
    transport
        .request(endpoint, std::move(request),
                 std::chrono::steady_clock::now() + std::chrono::seconds(30), response)
        .raiseIfFailed();
    return response;
  };

  // A small answer: the same bytes either way.
  std::vector<std::string> clusterPieces;
  auto whole = get("/admin/v2/clusters", nullptr);
  auto streamed = get("/admin/v2/clusters", &clusterPieces);
  ASSERT_EQ(whole.status, 200u) << whole.body;
  EXPECT_EQ(streamed.status, 200u);
  EXPECT_EQ(streamed.body, "");
  std::string joined;
  for (const auto& piece : clusterPieces) joined += piece;
  EXPECT_EQ(joined, whole.body);

  // The broker's Prometheus metrics: larger than a piece (16 KiB) even on a fresh standalone
  // (about 80 KB there; megabytes once it has served many topics).
  std::vector<std::string> metricPieces;
  auto metrics = get("/metrics/", &metricPieces);
  EXPECT_EQ(metrics.status, 200u);
  EXPECT_EQ(metrics.body, "");
  std::size_t bytes = 0;
  for (const auto& piece : metricPieces) bytes += piece.size();
  EXPECT_GT(metricPieces.size(), 2u) << bytes << " bytes";
  EXPECT_GT(bytes, 40'000u);

  // An error: nothing to the sink, the reason where it always is.
  std::vector<std::string> errorPieces;
  std::string topic = uniqueTopic("no-such");
  auto missing =
      get("/admin/v2/persistent/public/default/" + topic.substr(topic.rfind('/') + 1) + "/stats",
          &errorPieces);
  EXPECT_EQ(missing.status, 404u) << missing.body;
  EXPECT_TRUE(errorPieces.empty());
  EXPECT_NE(missing.body, "");
}

TEST(HttpAdminTransport, ConfigurationErrorsNameTheValue) {
  Error scheme = thrownBy([] {
    detail::admin::connectHttpAdmin(detail::ServiceUrl::parse("pulsar://localhost:6650"), {});
  });
  EXPECT_EQ(scheme.code(), errc::invalid_argument);
  EXPECT_NE(std::string(scheme.what()).find("pulsar://localhost:6650"), std::string::npos);

  AdminOptions missingCa;
  missingCa.tls.caFile = "/nonexistent/ca.pem";
  Error ca = thrownBy([&] {
    detail::admin::connectHttpAdmin(detail::ServiceUrl::parse("https://localhost:8443"), missingCa);
  });
  EXPECT_EQ(ca.code(), errc::invalid_argument);
  EXPECT_NE(std::string(ca.what()).find("/nonexistent/ca.pem"), std::string::npos) << ca.what();

  AdminOptions zero;
  zero.timeout = std::chrono::milliseconds(0);
  Error timeout = thrownBy([&] {
    detail::admin::connectHttpAdmin(detail::ServiceUrl::parse("http://localhost:8080"), zero);
  });
  EXPECT_EQ(timeout.code(), errc::invalid_argument);
}

}  // namespace
}  // namespace reconsume::integration
