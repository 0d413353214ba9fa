// Runs the official Java client (tests/interop, tests/interop/build.sh) as a subprocess and reads
// the JSON lines it prints. The jar bounds every run itself (--timeout-ms, default 30 s).
//
// The jar: RECONSUME_INTEROP_JAR, else tests/interop/target/reconsume-interop.jar of the source
// tree (CMake builds it when Maven is installed). `java` comes from PATH.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "integration/json_lines_process.hpp"

namespace reconsume::integration {

using JavaRun = JsonLinesRun;

// java -jar <jar> <command> --url <pulsar().serviceUrl> [--ca ... --token-file ...] <args...>
// Throws std::runtime_error when the jar is missing or java cannot be started.
JavaRun runJava(std::string_view command, const std::vector<std::string>& args);

// runJava, and a test failure (with what the jar printed) when it does not exit with 0.
JavaRun java(std::string_view command, const std::vector<std::string>& args);

}  // namespace reconsume::integration
