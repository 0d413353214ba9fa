#include "integration/pulsar_environment.hpp"

#include <unistd.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdlib>

#include "admin/http_admin.hpp"
#include "common/service_url.hpp"

namespace reconsume::integration {
namespace {

std::string fromEnvironment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

const char* const kHowToStart =
    "Start Pulsar first: scripts/with-pulsar.sh <this command> (or scripts/pulsar.sh start), or "
    "point RECONSUME_PULSAR_URL and RECONSUME_PULSAR_ADMIN_URL at a running broker.";

}  // namespace

std::optional<std::string> pulsarProblem() {
  const PulsarSetup& setup = pulsar();
  try {
    auto url = detail::ServiceUrl::parse(setup.serviceUrl);
    boost::asio::io_context io;
    boost::asio::ip::tcp::resolver resolver(io);
    boost::asio::ip::tcp::socket socket(io);
    boost::asio::connect(socket, resolver.resolve(url.host, std::to_string(url.port)));
  } catch (const std::exception& e) {
    return "Pulsar is not reachable at " + setup.serviceUrl + ": " + e.what() + "\n" + kHowToStart;
  }
  try {
    auto admin = detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(setup.adminUrl),
                                                 setup.adminOptions());
    admin->partitions("persistent://public/default/reconsume-reachability-probe");
  } catch (const std::exception& e) {
    return "Pulsar's admin API is not reachable at " + setup.adminUrl + ": " + e.what() + "\n" +
           kHowToStart;
  }
  return std::nullopt;
}

AdminOptions PulsarSetup::adminOptions() const {
  AdminOptions options;
  options.timeout = std::chrono::seconds(30);
  if (secureDir) {
    options.tls.caFile = secureFile("ca.pem");
    FILE* file = std::fopen(secureFile("token.txt").c_str(), "r");
    if (file != nullptr) {
      char buffer[4096];
      std::size_t size = std::fread(buffer, 1, sizeof buffer, file);
      std::fclose(file);
      options.token.assign(buffer, size);
    }
  }
  return options;
}

std::string PulsarSetup::secureFile(std::string_view name) const {
  return secureDir.value_or(".") + '/' + std::string(name);
}

const PulsarSetup& pulsar() {
  static const PulsarSetup setup = [] {
    PulsarSetup s;
    s.serviceUrl = fromEnvironment("RECONSUME_PULSAR_URL", "pulsar://localhost:6650");
    s.adminUrl = fromEnvironment("RECONSUME_PULSAR_ADMIN_URL", "http://localhost:8080");
    std::string secure = fromEnvironment("RECONSUME_PULSAR_SECURE_DIR", "");
    if (!secure.empty()) s.secureDir = secure;
    return s;
  }();
  return setup;
}

std::string uniqueTopic(std::string_view label) {
  static std::atomic<int> counter{0};
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  return "persistent://public/default/it-" + std::string(label) + '-' + std::to_string(now) + '-' +
         std::to_string(::getpid()) + '-' + std::to_string(counter++);
}

}  // namespace reconsume::integration
