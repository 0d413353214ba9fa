#include "connection_settings.hpp"

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "client_conf.hpp"
#include "common/service_url.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

std::string trimmed(std::string text) {
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && isSpace(text.back())) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && isSpace(text[start])) ++start;
  return text.substr(start);
}

[[noreturn]] void badConf(const ClientConf& conf, const std::string& key, const std::string& why) {
  throw Error(errc::invalid_argument,
              key + " '" + conf.get(key) + "' in " + conf.path + ": " + why);
}

// authParams "key1:value1,key2:value2" (or the JSON object form) → the value of `key`.
std::string authParam(const ClientConf& conf, const std::string& key) {
  std::string params = conf.get("authParams");
  if (params.starts_with("{")) {
    try {
      auto value = boost::json::parse(params);
      const auto* found = value.as_object().if_contains(key);
      return found != nullptr && found->is_string() ? std::string(found->as_string()) : "";
    } catch (const std::exception&) {
      badConf(conf, "authParams", "it starts as a JSON object but is not one");
    }
  }
  std::istringstream pairs(params);
  std::string pair;
  while (std::getline(pairs, pair, ',')) {
    auto colon = pair.find(':');
    if (colon != std::string::npos && trimmed(pair.substr(0, colon)) == key) {
      return trimmed(pair.substr(colon + 1));
    }
  }
  return "";
}

// authPlugin + authParams of a client.conf into `settings`.
void readAuthentication(const ClientConf& conf, ConnectionSettings& settings) {
  std::string plugin = conf.get("authPlugin");
  if (plugin.empty()) return;
  if (plugin.ends_with("AuthenticationToken")) {
    std::string params = conf.get("authParams");
    if (params.starts_with("token:")) {
      settings.token = trimmed(params.substr(6));
    } else if (params.starts_with("file://")) {
      std::string path = params.substr(7);
      settings.token = readTokenFile(path, "the token file of authParams in " + conf.path);
    } else {
      badConf(conf, "authParams", "expected token:<token> or file:///path/to/token");
    }
    if (settings.token.empty()) badConf(conf, "authParams", "the token is empty");
  } else if (plugin.ends_with("AuthenticationTls")) {
    settings.tls.certFile = authParam(conf, "tlsCertFile");
    settings.tls.keyFile = authParam(conf, "tlsKeyFile");
    if (settings.tls.certFile.empty() || settings.tls.keyFile.empty()) {
      badConf(conf, "authParams", "expected tlsCertFile:<path>,tlsKeyFile:<path>");
    }
  } else {
    badConf(conf, "authPlugin",
            "only token (AuthenticationToken) and TLS (AuthenticationTls) authentication are "
            "supported");
  }
}

void readTls(const ClientConf& conf, ConnectionSettings& settings) {
  if (auto ca = conf.get("tlsTrustCertsFilePath"); !ca.empty()) settings.tls.caFile = ca;
  if (auto cert = conf.get("tlsCertificateFilePath"); !cert.empty()) settings.tls.certFile = cert;
  if (auto key = conf.get("tlsKeyFilePath"); !key.empty()) settings.tls.keyFile = key;
  if (auto verify = conf.get("tlsEnableHostnameVerification"); !verify.empty()) {
    if (verify != "true" && verify != "false") {
      badConf(conf, "tlsEnableHostnameVerification", "expected true or false");
    }
    settings.tls.verifyHostname = verify == "true";
  }
  if (conf.get("tlsAllowInsecureConnection") == "true") {
    settings.warnings.push_back("tlsAllowInsecureConnection=true in " + conf.path +
                                " is not honoured: the broker's certificate is verified");
  }
}

// brokerServiceUrl or webServiceUrl, the Tls form when useTls=true sets one.
std::string confUrl(const ClientConf& conf, const std::string& key) {
  if (conf.get("useTls") == "true" && !conf.get(key + "Tls").empty()) return conf.get(key + "Tls");
  return conf.get(key);
}

LogLevel logLevelFor(const ConnectionFlags& flags) {
  if (flags.logLevel.empty()) return flags.verbose ? LogLevel::debug : LogLevel::warn;
  if (flags.logLevel == "debug") return LogLevel::debug;
  if (flags.logLevel == "info") return LogLevel::info;
  if (flags.logLevel == "warn") return LogLevel::warn;
  if (flags.logLevel == "error") return LogLevel::error;
  throw Error(errc::invalid_argument, "--log-level '" + flags.logLevel +
                                          "' is invalid: expected debug, info, warn or error");
}

}  // namespace

// `what` names the setting in the error: "--token-file '/x'", "PULSAR_AUTH_TOKEN_FILE '/x'".
std::string readTokenFile(const std::string& path, const std::string& what) {
  std::ifstream file(path);
  std::stringstream content;
  content << file.rdbuf();
  if (!file) throw Error(errc::invalid_argument, what + " '" + path + "' cannot be read");
  std::string token = trimmed(content.str());
  if (token.empty()) throw Error(errc::invalid_argument, what + " '" + path + "' is empty");
  return token;
}

void addConnectionFlags(CLI::App& command, ConnectionFlags& flags, const std::string& defaultUrl,
                        bool withAdminUrl) {
  command.add_option(
      "--url", flags.url,
      "Service URL (pulsar://, pulsar+ssl://, embedded://) [default: " + defaultUrl + "]");
  if (withAdminUrl) {
    command.add_option("--admin-url", flags.adminUrl,
                       "Admin URL (default: http://<host>:8080, https://<host>:8443 for TLS)");
  }
  command.add_option("--token-file", flags.tokenFile,
                     "File holding the authentication token (also PULSAR_AUTH_TOKEN_FILE)");
  command.add_option("--token", flags.token,
                     "Authentication token; visible to other users of this machine: prefer "
                     "--token-file or PULSAR_AUTH_TOKEN");
  command.add_option("--tls-ca", flags.tlsCa, "PEM file of the CAs to trust");
  command.add_option("--tls-cert", flags.tlsCert, "Client certificate (PEM) for mutual TLS");
  command.add_option("--tls-key", flags.tlsKey, "Private key (PEM) of --tls-cert");
  command.add_option("--client-conf", flags.clientConf,
                     "A Pulsar client.conf to read settings from (also PULSAR_CLIENT_CONF)");
  command.add_flag("-v,--verbose", flags.verbose, "Show the library's debug messages");
  command.add_option("--log-level", flags.logLevel, "debug | info | warn | error [default: warn]");
}

Environment processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

ConnectionSettings resolveConnection(const ConnectionFlags& flags, const Environment& environment,
                                     const std::string& defaultUrl, bool urlFromEnvironment,
                                     bool withAdminUrl) {
  ConnectionSettings settings;
  settings.logLevel = logLevelFor(flags);
  auto env = [&](const char* name) { return environment(name).value_or(""); };

  std::optional<ClientConf> conf;
  if (!flags.clientConf.empty()) {
    conf = readClientConf(flags.clientConf);
  } else if (auto path = env("PULSAR_CLIENT_CONF"); !path.empty()) {
    conf = readClientConf(path);
  }

  // Weakest first, each step overriding what it sets.
  settings.url = defaultUrl;
  settings.urlSource = "default";
  std::string confAdminUrl;
  if (conf) {
    readTls(*conf, settings);
    readAuthentication(*conf, settings);
    if (auto url = confUrl(*conf, "brokerServiceUrl"); urlFromEnvironment && !url.empty()) {
      settings.url = url;
      settings.urlSource = "brokerServiceUrl in " + conf->path;
      confAdminUrl = confUrl(*conf, "webServiceUrl");
    }
  }
  if (auto url = env("PULSAR_SERVICE_URL"); urlFromEnvironment && !url.empty()) {
    settings.url = url;
    settings.urlSource = "PULSAR_SERVICE_URL";
    confAdminUrl.clear();
  }
  if (auto token = env("PULSAR_AUTH_TOKEN"); !token.empty()) settings.token = token;
  if (auto path = env("PULSAR_AUTH_TOKEN_FILE"); !path.empty()) {
    settings.token = readTokenFile(path, "PULSAR_AUTH_TOKEN_FILE");
  }
  if (!flags.url.empty()) {
    settings.url = flags.url;
    settings.urlSource = "--url";
    confAdminUrl.clear();
  }
  if (!flags.token.empty()) settings.token = flags.token;
  if (!flags.tokenFile.empty()) settings.token = readTokenFile(flags.tokenFile, "--token-file");
  if (!flags.tlsCa.empty()) settings.tls.caFile = flags.tlsCa;
  if (!flags.tlsCert.empty() || !flags.tlsKey.empty()) {
    if (flags.tlsCert.empty() || flags.tlsKey.empty()) {
      throw Error(errc::invalid_argument,
                  flags.tlsCert.empty() ? "--tls-key '" + flags.tlsKey + "' needs --tls-cert"
                                        : "--tls-cert '" + flags.tlsCert + "' needs --tls-key");
    }
    settings.tls.certFile = flags.tlsCert;
    settings.tls.keyFile = flags.tlsKey;
  }

  if (withAdminUrl) {
    if (!flags.adminUrl.empty()) {
      settings.adminUrl = flags.adminUrl;
    } else if (auto url = env("PULSAR_ADMIN_URL"); !url.empty()) {
      settings.adminUrl = url;
    } else if (!confAdminUrl.empty()) {
      settings.adminUrl = confAdminUrl;
    } else {
      settings.adminUrl = adminUrlFor(settings.url, settings.urlSource);
    }
  }
  return settings;
}

std::string adminUrlFor(const std::string& serviceUrl, const std::string& source) {
  auto url = detail::ServiceUrl::parse(serviceUrl);
  switch (url.kind) {
    case detail::ServiceUrl::Kind::embedded:
      return serviceUrl;
    case detail::ServiceUrl::Kind::pulsar:
      return "http://" + url.host + ":8080";
    case detail::ServiceUrl::Kind::pulsarTls:
      return "https://" + url.host + ":8443";
    default:
      throw Error(errc::invalid_argument,
                  (source == "default" ? std::string("the service URL") : source) + " '" +
                      serviceUrl +
                      "' is not a service URL (pulsar://, pulsar+ssl:// or embedded://)");
  }
}

ClientOptions clientOptionsFor(const ConnectionSettings& settings) {
  ClientOptions options;
  options.token = settings.token;
  options.tls = settings.tls;
  options.logLevel = settings.logLevel;
  options.logger = [](LogLevel level, std::string_view message) {
    static constexpr const char* kNames[] = {"debug", "info", "warn", "error"};
    auto now = std::chrono::system_clock::now();
    auto seconds = std::chrono::system_clock::to_time_t(now);
    auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    std::tm local{};
    localtime_r(&seconds, &local);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", &local);
    // One fprintf per message: lines from several library threads do not interleave.
    std::fprintf(stderr, "%s.%03d reconsume %s: %.*s\n", stamp, static_cast<int>(millis.count()),
                 kNames[static_cast<int>(level)], static_cast<int>(message.size()), message.data());
  };
  return options;
}

void quietenForJson(const ConnectionFlags& flags, ConnectionSettings& settings) {
  if (flags.logLevel.empty() && !flags.verbose) settings.logLevel = LogLevel::error;
}

void printWarnings(const ConnectionSettings& settings, std::ostream& err) {
  for (const auto& warning : settings.warnings) {
    err << yellow("warning:", Stream::err) << " " << warning << "\n";
  }
}

AdminOptions adminOptionsFor(const ConnectionSettings& settings) {
  AdminOptions options;
  options.token = settings.token;
  options.tls = settings.tls;
  return options;
}

}  // namespace reconsume::tools
