// The subcommands of the `reconsume` tool. Each adds itself to the app; its callback sets the
// process's exit code (exit_codes.hpp: 0 success, 1 runtime failure, 2 usage error), printing
// the library's errors (reconsume::Error) itself.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "exit_codes.hpp"

namespace reconsume::tools {

// Runs `body` and returns its exit code; an Error it throws is printed to stderr ("error: ...", or
// errorJson's line when `json`) and gives exitCodeFor(error).
int runReporting(const std::function<int()>& body, bool json = false);

// An error as one JSON object, for --json: {"error": <message>, "code": <errc text>,
// "exitCode": <code>}.
std::string errorJson(const std::string& message, const std::error_code& code, int exitCode);

// main's check before parsing: the first word that is not an option must name a command of
// `app`, and for a command with verbs of its own (dlq) the next one a verb. The message naming
// the unknown word ("unknown command 'frob' (expected demo, dlq or perf)"), or "" when all is
// well (CLI11 reports the rest).
std::string unknownCommand(const CLI::App& app, const std::vector<std::string>& args);

// Makes every option and argument of `app` and its commands that takes a value refuse an empty
// one (a usage error naming the option): `--to "$DEST"` with DEST unset must not mean "no --to"
// and replay to each origin, nor `--origin ''` drop a filter and widen a purge.
void refuseEmptyValues(CLI::App& app);

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
