// The base of the tests against the secure standalone (scripts/pulsar.sh start --secure <dir>: TLS
// with a certificate for DNS:localhost only, tokens required), run by the ctest entry
// reconsume_integration_secure, which starts that variant and sets RECONSUME_PULSAR_SECURE_DIR.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "integration/pulsar_environment.hpp"

namespace reconsume::integration {

class SecureStandaloneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pulsar().secureDir.has_value())
        << "RECONSUME_PULSAR_SECURE_DIR is not set: run these tests through "
           "scripts/with-pulsar.sh --secure <dir> (ctest -R reconsume_integration_secure)";
  }

  // The text of a file the secure variant wrote into its directory (a CA certificate, a token).
  static std::string file(std::string_view name) {
    std::ifstream in(pulsar().secureFile(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

}  // namespace reconsume::integration
