// Runs the `reconsume` binary as a user would, for the process tests: its exit code, what it
// wrote, how long it took; optionally with environment variables set or removed, and optionally
// on a terminal (a pseudo-terminal of `columns` columns, where stdout and stderr are one stream).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "unit/expect_error.hpp"  // mentions

namespace reconsume::testing {

struct CliRun {
  int code = -1;
  std::string out, err;  // on a terminal both are in `out`
  std::chrono::milliseconds took{0};
};

struct CliEnvironment {
  // Set (name, value) or, with nullopt, removed in the tool's environment. The variables the
  // tool reads (PULSAR_*, NO_COLOR) start unset, whatever the test runner's environment has.
  std::vector<std::pair<std::string, std::optional<std::string>>> variables;
  bool terminal = false;
  int columns = 80;
};

CliRun runCli(const std::vector<std::string>& args, const CliEnvironment& environment = {});

}  // namespace reconsume::testing
