// Where a command connects and how it authenticates, as Pulsar users already say it. Strongest
// first:
//   1. the command line: --url, --admin-url, --token-file, --token, --tls-ca, --tls-cert,
//      --tls-key, --client-conf, -v / --log-level;
//   2. the environment: PULSAR_SERVICE_URL, PULSAR_ADMIN_URL, PULSAR_AUTH_TOKEN_FILE,
//      PULSAR_AUTH_TOKEN, PULSAR_CLIENT_CONF (the file of step 3);
//   3. a client.conf as pulsar-admin reads it: brokerServiceUrl, webServiceUrl (the *Tls forms
//      with useTls=true), authPlugin + authParams (token: "token:<jwt>" or "file:///path"; TLS:
//      "tlsCertFile:<path>,tlsKeyFile:<path>"), tlsTrustCertsFilePath, tlsCertificateFilePath,
//      tlsKeyFilePath, tlsEnableHostnameVerification;
//   4. the command's defaults.
// The service URL is taken from steps 2 and 3 only by the commands that work on a broker (the
// dlq verbs); demo and perf run on the embedded broker unless --url is given. The admin URL is
// the conf's webServiceUrl only when the service URL came from the same conf; otherwise it is
// derived from the service URL (http://<host>:8080, https://<host>:8443).
//
// Thread safety: plain values and pure functions, except processEnvironment (reads the process
// environment) and resolveConnection (reads files the settings name).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reconsume/reconsume.hpp"

namespace reconsume::tools {

// The options as typed ("" when not given).
struct ConnectionFlags {
  std::string url, adminUrl, token, tokenFile, tlsCa, tlsCert, tlsKey, clientConf, logLevel;
  bool verbose = false;
};

// --url (with `defaultUrl` shown in the help), --admin-url when `withAdminUrl`, --token,
// --token-file, --tls-ca, --tls-cert, --tls-key, --client-conf, -v, --log-level.
void addConnectionFlags(CLI::App& command, ConnectionFlags& flags, const std::string& defaultUrl,
                        bool withAdminUrl);

// A variable's value, nullopt when it is not set.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment processEnvironment();

struct ConnectionSettings {
  std::string url;
  std::string urlSource;  // "--url", "PULSAR_SERVICE_URL", "brokerServiceUrl in <path>", "default"
  std::string adminUrl;   // "" for commands without one
  std::string token;
  TlsOptions tls;
  LogLevel logLevel = LogLevel::warn;
  std::vector<std::string> warnings;  // settings read but not honoured, for stderr
};

// Throws Error(errc::invalid_argument) naming the setting and where it came from: a file that
// cannot be read (token, client.conf), an unknown log level, an authPlugin other than token or
// TLS, authParams that cannot be read, a --tls-cert without --tls-key (or the reverse).
ConnectionSettings resolveConnection(const ConnectionFlags& flags, const Environment& environment,
                                     const std::string& defaultUrl, bool urlFromEnvironment,
                                     bool withAdminUrl);

// embedded://x → the same; pulsar://host[:port] → http://host:8080; pulsar+ssl://host[:port] →
// https://host:8443. Throws invalid_argument naming a URL of another scheme and `source`, where
// the URL came from ("--url", "PULSAR_SERVICE_URL", ...).
std::string adminUrlFor(const std::string& serviceUrl, const std::string& source = "--url");

// The token in the file at `path`, trimmed. Throws Error(invalid_argument) "<what> '<path>' cannot
// be read" (or "is empty"); `what` names the setting ("--token-file", "PULSAR_AUTH_TOKEN_FILE").
std::string readTokenFile(const std::string& path, const std::string& what);

// For --json: only the library's errors are logged, unless -v or --log-level said otherwise.
void quietenForJson(const ConnectionFlags& flags, ConnectionSettings& settings);

// The client's options for these settings: token, TLS, and a logger writing to stderr at the
// chosen level ("reconsume <level>: <message>", with the time).
ClientOptions clientOptionsFor(const ConnectionSettings& settings);
// The settings' warnings to `err`, one "warning: ..." line each.
void printWarnings(const ConnectionSettings& settings, std::ostream& err);
AdminOptions adminOptionsFor(const ConnectionSettings& settings);

}  // namespace reconsume::tools
