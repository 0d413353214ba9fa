// The subcommands of the `reconsume` tool. Each adds itself to the app; its callback sets the
// process's exit code. Errors of the library (reconsume::Error) are printed by main.
#pragma once

#include <CLI/CLI.hpp>

namespace reconsume::tools {

void addDemoCommand(CLI::App& app, int& exitCode);
void addPerfCommand(CLI::App& app, int& exitCode);

}  // namespace reconsume::tools
