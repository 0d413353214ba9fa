// Where the tool connects and how it authenticates: the command line over the environment over
// a client.conf over the defaults, each source named when what it says cannot be used. The
// environment is a map here; cli_process_test.cpp sets real variables for the binary.
#include "connection_settings.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "client_conf.hpp"
#include "terminal.hpp"
#include "unit/expect_error.hpp"

namespace reconsume::tools {
namespace {

using reconsume::testing::invalidArgumentText;
using Variables = std::map<std::string, std::string>;

Environment environmentOf(Variables variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

// A file in the test's scratch directory, removed with the object.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& text)
      : path_(::testing::TempDir() + name + "-" + std::to_string(::getpid())) {
    std::ofstream(path_) << text;
  }
  ~ScratchFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

ConnectionSettings forDlq(const ConnectionFlags& flags, Variables variables = {}) {
  return resolveConnection(flags, environmentOf(std::move(variables)), "pulsar://localhost:6650",
                           /*urlFromEnvironment=*/true, /*withAdminUrl=*/true);
}

TEST(ClientConf, ReadsJavaPropertiesAsPulsarWritesThem) {
  auto conf = parseClientConf(
      "# Pulsar client configuration\n"
      "! another comment\n"
      "webServiceUrl=http://broker.example.com:8080/\n"
      "brokerServiceUrl : pulsar://broker.example.com:6650/\n"
      "authPlugin=\n"
      "authParams=tlsCertFile:/a.pem,\\\n"
      "    tlsKeyFile:/b.pem\n"
      "tlsAllowInsecureConnection=false\r\n",
      "client.conf");
  EXPECT_EQ(conf.get("webServiceUrl"), "http://broker.example.com:8080/");
  EXPECT_EQ(conf.get("brokerServiceUrl"), "pulsar://broker.example.com:6650/");
  EXPECT_EQ(conf.get("authPlugin"), "");
  EXPECT_EQ(conf.get("authParams"), "tlsCertFile:/a.pem,tlsKeyFile:/b.pem");
  EXPECT_EQ(conf.get("tlsAllowInsecureConnection"), "false");
  EXPECT_EQ(conf.get("absent"), "");
}

TEST(ConnectionSettings, TheCommandLineWinsOverTheEnvironmentWhichWinsOverClientConf) {
  ScratchFile conf("client.conf",
                   "brokerServiceUrl=pulsar://from-conf:6650\n"
                   "webServiceUrl=http://from-conf:8080\n"
                   "authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken\n"
                   "authParams=token:conf-token\n");
  ScratchFile tokenFile("token", "file-token\n");
  ConnectionFlags flags;
  flags.clientConf = conf.path();

  auto fromConf = forDlq(flags);
  EXPECT_EQ(fromConf.url, "pulsar://from-conf:6650");
  EXPECT_EQ(fromConf.urlSource, "brokerServiceUrl in " + conf.path());
  EXPECT_EQ(fromConf.adminUrl, "http://from-conf:8080") << "the conf's own web service";
  EXPECT_EQ(fromConf.token, "conf-token");

  Variables environment = {{"PULSAR_SERVICE_URL", "pulsar://from-env:6650"},
                           {"PULSAR_AUTH_TOKEN", "env-token"}};
  auto fromEnvironment = forDlq(flags, environment);
  EXPECT_EQ(fromEnvironment.url, "pulsar://from-env:6650");
  EXPECT_EQ(fromEnvironment.adminUrl, "http://from-env:8080") << "not the conf's other broker";
  EXPECT_EQ(fromEnvironment.token, "env-token");

  environment["PULSAR_AUTH_TOKEN_FILE"] = tokenFile.path();
  EXPECT_EQ(forDlq(flags, environment).token, "file-token") << "a token file beats a token";

  flags.url = "pulsar://from-flag:6650";
  flags.token = "flag-token";
  auto fromFlags = forDlq(flags, environment);
  EXPECT_EQ(fromFlags.url, "pulsar://from-flag:6650");
  EXPECT_EQ(fromFlags.urlSource, "--url");
  EXPECT_EQ(fromFlags.adminUrl, "http://from-flag:8080");
  EXPECT_EQ(fromFlags.token, "flag-token");

  flags.adminUrl = "http://admin-flag:8080";
  environment["PULSAR_ADMIN_URL"] = "http://admin-env:8080";
  EXPECT_EQ(forDlq(flags, environment).adminUrl, "http://admin-flag:8080");
  flags.adminUrl.clear();
  EXPECT_EQ(forDlq(flags, environment).adminUrl, "http://admin-env:8080");
}

TEST(ConnectionSettings, PulsarClientConfNamesTheFileWhenNoFlagDoes) {
  ScratchFile conf(
      "client.conf",
      "useTls=true\n"
      "brokerServiceUrl=pulsar://plain:6650\n"
      "brokerServiceUrlTls=pulsar+ssl://secure:6651\n"
      "webServiceUrlTls=https://secure:8443\n"
      "tlsTrustCertsFilePath=/etc/pulsar/ca.pem\n"
      "tlsEnableHostnameVerification=false\n"
      "authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationTls\n"
      "authParams=tlsCertFile:/etc/pulsar/client.pem,tlsKeyFile:/etc/pulsar/key.pem\n");
  auto settings = forDlq({}, {{"PULSAR_CLIENT_CONF", conf.path()}});
  EXPECT_EQ(settings.url, "pulsar+ssl://secure:6651");
  EXPECT_EQ(settings.adminUrl, "https://secure:8443");
  EXPECT_EQ(settings.tls.caFile, "/etc/pulsar/ca.pem");
  EXPECT_FALSE(settings.tls.verifyHostname);
  EXPECT_EQ(settings.tls.certFile, "/etc/pulsar/client.pem");
  EXPECT_EQ(settings.tls.keyFile, "/etc/pulsar/key.pem");
}

TEST(ConnectionSettings, DemoAndPerfStayOnTheEmbeddedBrokerUnlessToldWithUrl) {
  ScratchFile conf("client.conf", "brokerServiceUrl=pulsar://from-conf:6650\n");
  ConnectionFlags flags;
  flags.clientConf = conf.path();
  auto settings = resolveConnection(
      flags,
      environmentOf({{"PULSAR_SERVICE_URL", "pulsar://env:6650"}, {"PULSAR_AUTH_TOKEN", "t"}}),
      "embedded://demo", /*urlFromEnvironment=*/false, /*withAdminUrl=*/false);
  EXPECT_EQ(settings.url, "embedded://demo");
  EXPECT_EQ(settings.token, "t") << "credentials still come from the environment";
  EXPECT_EQ(settings.adminUrl, "");
}

TEST(ConnectionSettings, WhatCannotBeUsedIsNamedWithWhereItCameFrom) {
  ConnectionFlags flags;
  flags.clientConf = "/nonexistent/client.conf";
  EXPECT_NE(invalidArgumentText([&] { forDlq(flags); }).find("'/nonexistent/client.conf'"), std::string::npos);

  auto message = invalidArgumentText([] { forDlq({}, {{"PULSAR_AUTH_TOKEN_FILE", "/nonexistent/token"}}); });
  EXPECT_NE(message.find("PULSAR_AUTH_TOKEN_FILE '/nonexistent/token'"), std::string::npos)
      << message;

  ScratchFile oauth("client.conf",
                    "authPlugin=org.apache.pulsar.client.impl.auth.oauth2.AuthenticationOAuth2\n");
  message = invalidArgumentText([&] { forDlq({}, {{"PULSAR_CLIENT_CONF", oauth.path()}}); });
  EXPECT_NE(message.find("AuthenticationOAuth2"), std::string::npos) << message;
  EXPECT_NE(message.find(oauth.path()), std::string::npos) << message;

  ScratchFile badToken("client.conf",
                       "authPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken\n"
                       "authParams=jwt-without-prefix\n");
  message = invalidArgumentText([&] { forDlq({}, {{"PULSAR_CLIENT_CONF", badToken.path()}}); });
  EXPECT_NE(message.find("'jwt-without-prefix'"), std::string::npos) << message;

  ConnectionFlags certOnly;
  certOnly.tlsCert = "/x/cert.pem";
  message = invalidArgumentText([&] { forDlq(certOnly); });
  EXPECT_NE(message.find("--tls-cert '/x/cert.pem' needs --tls-key"), std::string::npos) << message;

  ConnectionFlags level;
  level.logLevel = "chatty";
  EXPECT_NE(invalidArgumentText([&] { forDlq(level); }).find("--log-level 'chatty'"), std::string::npos);

  message = invalidArgumentText([] { forDlq({}, {{"PULSAR_SERVICE_URL", "http://broker:8080"}}); });
  EXPECT_NE(message.find("PULSAR_SERVICE_URL 'http://broker:8080'"), std::string::npos) << message;
}

TEST(ConnectionSettings, AnInsecureConnectionIsNotHonouredAndSaysSo) {
  ScratchFile conf("client.conf", "tlsAllowInsecureConnection=true\n");
  auto settings = forDlq({}, {{"PULSAR_CLIENT_CONF", conf.path()}});
  ASSERT_EQ(settings.warnings.size(), 1u);
  EXPECT_NE(settings.warnings[0].find("tlsAllowInsecureConnection"), std::string::npos);
  EXPECT_TRUE(settings.tls.verifyHostname);
}

TEST(ConnectionSettings, VerboseMeansDebugAndTheDefaultIsWarnings) {
  EXPECT_EQ(forDlq({}).logLevel, LogLevel::warn);
  ConnectionFlags verbose;
  verbose.verbose = true;
  EXPECT_EQ(forDlq(verbose).logLevel, LogLevel::debug);
  ConnectionFlags errorsOnly;
  errorsOnly.logLevel = "error";
  EXPECT_EQ(forDlq(errorsOnly).logLevel, LogLevel::error);
}

TEST(Terminal, AProgressLineIsCutByVisibleCharactersKeepingColour) {
  EXPECT_EQ(cutToColumns("replayed 10 of 20", 8), "replayed");
  EXPECT_EQ(cutToColumns("short", 80), "short");
  EXPECT_EQ(cutToColumns("\x1b[31m3 failed\x1b[0m and more", 3), "\x1b[31m3 f\x1b[0m");
  EXPECT_EQ(cutToColumns("ständig ▏▎", 9), "ständig ▏");
}

}  // namespace
}  // namespace reconsume::tools
