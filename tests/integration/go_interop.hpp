// Runs the official Go client (tests/interop-go, github.com/apache/pulsar-client-go) as a
// subprocess and reads the JSON lines it prints. The binary bounds every run itself
// (--timeout-ms, default 30 s).
//
// The binary: RECONSUME_INTEROP_GO_BIN, else the one CMake builds with `go` into the build tree
// (tests/interop-go/reconsume-interop-go).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "integration/json_lines_process.hpp"

namespace reconsume::integration {

using GoRun = JsonLinesRun;

// <binary> <command> --url <pulsar().serviceUrl> [--ca ... --token-file ...] <args...>
// Throws std::runtime_error when the binary is missing or cannot be started.
GoRun runGo(std::string_view command, const std::vector<std::string>& args);

}  // namespace reconsume::integration
