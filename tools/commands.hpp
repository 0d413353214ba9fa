// The subcommands of the `reconsume` tool. Each adds itself to the app; its callback sets the
// process's exit code. Errors of the library (reconsume::Error) are printed by main, except those
// of `dlq`, whose verbs print their own and choose the exit code (0 ok, 1 failed, 2 bad input).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace reconsume::tools {

void addDemoCommand(CLI::App& app, int& exitCode);
void addPerfCommand(CLI::App& app, int& exitCode);

// `reconsume dlq list|show|stats|export|replay|purge`, writing to std::cout and std::cerr.
void addDlqCommand(CLI::App& app, int& exitCode);
// The same writing to `out` and `err` (which must outlive the app).
void addDlqCommand(CLI::App& app, int& exitCode, std::ostream& out, std::ostream& err);
// Parses and runs `dlq ...` (args without the program name, e.g. {"dlq", "list", "topic"}) in
// this process; returns the exit code. Parse errors are bad input (2).
int runDlqCommandLine(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace reconsume::tools
