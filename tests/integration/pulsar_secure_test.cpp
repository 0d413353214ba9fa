// pulsar+ssl:// with token authentication against the secure standalone (scripts/pulsar.sh start
// --secure <dir>: TLS on 6651 with a certificate for DNS:localhost only, tokens required). Run by
// the ctest entry reconsume_integration_secure, which starts that variant and sets
// RECONSUME_PULSAR_SECURE_DIR. Failures are authentication errors carrying OpenSSL's or the
// broker's words, and they come at once, not after a timeout of retries.
#include <gtest/gtest.h>

#include "integration/pulsar_environment.hpp"
#include "integration/secure_standalone.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

class PulsarSecure : public SecureStandaloneTest {
 protected:
  static ClientOptions options(std::string caFile, std::string token) {
    ClientOptions o;
    o.tls.caFile = std::move(caFile);
    o.token = std::move(token);
    o.operationTimeout = 20s;
    o.logger = [](LogLevel, std::string_view) {};
    return o;
  }

  // The error of creating a producer with these settings; fails the test when there is none.
  static Error failure(const std::string& url, const ClientOptions& options,
                       std::chrono::milliseconds& took) {
    auto start = std::chrono::steady_clock::now();
    try {
      auto client = Client::connect(url, options);
      client.createProducer(uniqueTopic("secure-refused"));
    } catch (const Error& e) {
      took = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - start);
      return e;
    }
    ADD_FAILURE() << "creating a producer on " << url << " succeeded";
    return Error(errc::invalid_argument, "nothing thrown");
  }
};

TEST_F(PulsarSecure, SendReceiveAndReconsumeOverTlsWithTheCaAndAToken) {
  auto client = Client::connect("pulsar+ssl://localhost:6651",
                                options(pulsar().secureFile("ca.pem"), file("token.txt")));
  auto topic = uniqueTopic("secure-flow");
  ConsumerOptions consumerOptions;
  consumerOptions.topics = {topic};
  consumerOptions.subscription = "secure";
  consumerOptions.initialPosition = InitialPosition::earliest;
  consumerOptions.retry = RetryPolicy::levels(DelayLevels::parse("200ms"));
  auto consumer = client.subscribe(consumerOptions);
  auto sent = client.createProducer(topic).send("over TLS");

  auto message = consumer.receive(10s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->data(), "over TLS");
  EXPECT_EQ(message->id(), sent);
  consumer.reconsumeLater(*message);
  auto retried = consumer.receive(10s);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->property("RECONSUMETIMES"), "1");
  EXPECT_EQ(retried->property("ORIGIN_MESSAGE_ID"), sent.toString());
  consumer.acknowledge(*retried);
  client.close();
}

TEST_F(PulsarSecure, ATokenSupplierIsAskedAtConnect) {
  int asked = 0;
  auto o = options(pulsar().secureFile("ca.pem"), "");
  o.tokenSupplier = [&asked] {
    ++asked;
    return file("token.txt");
  };
  auto client = Client::connect("pulsar+ssl://localhost:6651", o);
  EXPECT_NO_THROW(client.createProducer(uniqueTopic("secure-supplier")).send("x"));
  EXPECT_GE(asked, 1);
  client.close();
}

TEST_F(PulsarSecure, AnUnknownCaIsAnAuthenticationErrorInOpenSslsWords) {
  std::chrono::milliseconds took{};
  Error error = failure("pulsar+ssl://localhost:6651",
                        options(pulsar().secureFile("wrong-ca.pem"), file("token.txt")), took);
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("certificate verify failed"), std::string::npos)
      << error.what();
  EXPECT_FALSE(isRetryable(error.code()));
  EXPECT_LT(took, 10s) << "not retried until the operation timeout";
}

TEST_F(PulsarSecure, AHostNameTheCertificateDoesNotNameIsAnAuthenticationError) {
  // The certificate names DNS:localhost only.
  std::chrono::milliseconds took{};
  auto checked = options(pulsar().secureFile("ca.pem"), file("token.txt"));
  Error error = failure("pulsar+ssl://127.0.0.1:6651", checked, took);
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("IP address mismatch"), std::string::npos)
      << error.what();
  EXPECT_NE(std::string(error.what()).find("127.0.0.1"), std::string::npos) << error.what();

  auto unchecked = checked;
  unchecked.tls.verifyHostname = false;
  auto client = Client::connect("pulsar+ssl://127.0.0.1:6651", unchecked);
  EXPECT_NO_THROW(client.createProducer(uniqueTopic("secure-unchecked")).send("x"));
  client.close();
}

TEST_F(PulsarSecure, ABadTokenIsAnAuthenticationErrorWithTheBrokersText) {
  std::chrono::milliseconds took{};
  Error error = failure("pulsar+ssl://localhost:6651",
                        options(pulsar().secureFile("ca.pem"), file("bad-token.txt")), took);
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("AuthenticationError"), std::string::npos)
      << error.what();
  EXPECT_LT(took, 10s) << "not retried until the operation timeout";

  Error none =
      failure("pulsar+ssl://localhost:6651", options(pulsar().secureFile("ca.pem"), ""), took);
  EXPECT_EQ(none.code(), errc::authentication) << none.what();
}

}  // namespace
}  // namespace reconsume::integration
