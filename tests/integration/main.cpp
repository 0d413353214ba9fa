// The integration tests' main: refuses to run (exit 1, never a skip) when Pulsar is not there.
#include <gtest/gtest.h>

#include <iostream>

#include "integration/pulsar_environment.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Listing the tests (ctest's discovery at build time) needs no broker.
  if (!GTEST_FLAG_GET(list_tests)) {
    if (auto problem = reconsume::integration::pulsarProblem()) {
      std::cerr << "[  FAILED  ] integration tests cannot run: " << *problem << std::endl;
      return 1;
    }
  }
  return RUN_ALL_TESTS();
}
