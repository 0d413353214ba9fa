// Where the integration tests find Pulsar, and the check that it is there.
//
//   RECONSUME_PULSAR_URL         binary protocol (default pulsar://localhost:6650)
//   RECONSUME_PULSAR_ADMIN_URL   admin REST API (default http://localhost:8080)
//   RECONSUME_PULSAR_SECURE_DIR  set when the broker is the secure variant (scripts/pulsar.sh
//                                start --secure <dir>): the CA and token files of that directory
//                                are used by the admin client and the Java client.
//
// Before any test runs, main() (integration/main.cpp) checks that both URLs answer; when they do
// not, the run FAILS with a message saying how to start Pulsar: never a silent skip.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "reconsume/admin.hpp"

namespace reconsume::integration {

struct PulsarSetup {
  std::string serviceUrl;
  std::string adminUrl;
  std::optional<std::string> secureDir;

  // TLS with the secure directory's CA and its token; nothing for the plain variant.
  AdminOptions adminOptions() const;
  std::string secureFile(std::string_view name) const;  // "<secureDir>/<name>"
};

const PulsarSetup& pulsar();

// Why the broker cannot be used (its ports do not answer), or nothing when it can.
std::optional<std::string> pulsarProblem();

// A topic name no earlier run used (the standalone keeps its data between runs):
// persistent://public/default/it-<label>-<time>-<pid>-<counter>.
std::string uniqueTopic(std::string_view label);

}  // namespace reconsume::integration
