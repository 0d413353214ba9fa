// The HTTP admin backend against the secure standalone (scripts/pulsar.sh start --secure <dir>):
// TLS on 8443 with a certificate for DNS:localhost only, token authentication. Run by the ctest
// entry reconsume_integration_secure, which starts that variant and sets
// RECONSUME_PULSAR_SECURE_DIR.
#include <gtest/gtest.h>

#include "admin/http_admin.hpp"
#include "common/service_url.hpp"
#include "integration/java_interop.hpp"
#include "integration/pulsar_environment.hpp"
#include "integration/secure_standalone.hpp"
#include "reconsume/error.hpp"

namespace reconsume::integration {
namespace {

class HttpAdminSecure : public SecureStandaloneTest {
 protected:
  static AdminOptions options(std::string caFile, std::string token) {
    AdminOptions o;
    o.tls.caFile = std::move(caFile);
    o.token = std::move(token);
    o.timeout = std::chrono::seconds(30);
    return o;
  }

  static Error failure(const std::string& url, const AdminOptions& options) {
    try {
      detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(url), options)
          ->partitions(uniqueTopic("secure-refused"));
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "the request to " << url << " succeeded";
    return Error(errc::invalid_argument, "nothing thrown");
  }
};

TEST_F(HttpAdminSecure, WorksOverTlsWithTheCaAndAValidToken) {
  auto admin =
      detail::admin::connectHttpAdmin(detail::ServiceUrl::parse("https://localhost:8443"),
                                      options(pulsar().secureFile("ca.pem"), file("token.txt")));
  std::string topic = uniqueTopic("secure");
  admin->createPartitionedTopic(topic, 2);
  EXPECT_EQ(admin->partitions(topic), 2);
  EXPECT_TRUE(admin->topicExists(topic));
  admin->deleteTopic(topic);
  EXPECT_FALSE(admin->topicExists(topic));
}

TEST_F(HttpAdminSecure, ATokenSignedWithAnotherKeyIsAnAuthenticationError) {
  Error error = failure("https://localhost:8443",
                        options(pulsar().secureFile("ca.pem"), file("bad-token.txt")));
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("401"), std::string::npos) << error.what();
  EXPECT_FALSE(isRetryable(error.code()));
}

TEST_F(HttpAdminSecure, NoTokenIsAnAuthenticationErrorOnThePlainPortToo) {
  Error tls = failure("https://localhost:8443", options(pulsar().secureFile("ca.pem"), ""));
  EXPECT_EQ(tls.code(), errc::authentication) << tls.what();
  Error plain = failure("http://localhost:8080", options("", ""));
  EXPECT_EQ(plain.code(), errc::authentication) << plain.what();
}

TEST_F(HttpAdminSecure, AnUnknownCaFailsTheHandshake) {
  Error error = failure("https://localhost:8443",
                        options(pulsar().secureFile("wrong-ca.pem"), file("token.txt")));
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("TLS handshake"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("certificate"), std::string::npos) << error.what();
}

// Without a CA file the system's store is loaded at the first https request (not when the admin
// is made: an http-only one never loads it), and it does not know this broker's test CA.
TEST_F(HttpAdminSecure, WithoutACaFileTheSystemStoreJudgesTheCertificate) {
  Error error = failure("https://localhost:8443", options("", file("token.txt")));
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("TLS handshake"), std::string::npos) << error.what();
  EXPECT_NE(std::string(error.what()).find("certificate"), std::string::npos) << error.what();
}

TEST_F(HttpAdminSecure, AHostNameTheCertificateDoesNotNameFailsUnlessUnchecked) {
  // The server certificate names DNS:localhost only; 127.0.0.1 is not in it.
  AdminOptions checked = options(pulsar().secureFile("ca.pem"), file("token.txt"));
  Error error = failure("https://127.0.0.1:8443", checked);
  EXPECT_EQ(error.code(), errc::authentication) << error.what();
  EXPECT_NE(std::string(error.what()).find("127.0.0.1"), std::string::npos) << error.what();

  AdminOptions unchecked = checked;
  unchecked.tls.verifyHostname = false;
  auto admin = detail::admin::connectHttpAdmin(detail::ServiceUrl::parse("https://127.0.0.1:8443"),
                                               unchecked);
  EXPECT_EQ(admin->partitions(uniqueTopic("secure-unchecked")), 0);
}

TEST_F(HttpAdminSecure, TheJavaClientNeedsTheValidToken) {
  std::string topic = uniqueTopic("secure-java");
  JavaRun good = runJava("produce", {"--topic", topic, "--count", "1", "--verify-hostname"});
  EXPECT_EQ(good.exitCode, 0) << good.output;

  std::vector<std::string> bad = {
      "--topic",      topic,   "--count",      "1",
      "--timeout-ms", "15000", "--token-file", pulsar().secureFile("bad-token.txt")};
  JavaRun refused = runJava("produce", bad);  // the later --token-file wins
  EXPECT_NE(refused.exitCode, 0) << refused.output;
  auto errors = refused.events("error");
  ASSERT_EQ(errors.size(), 1u) << refused.output;
  EXPECT_NE(errors[0].at("exception").as_string().find("Authentication"), std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace reconsume::integration
