// Shell completion for `reconsume`, generated from the command's own CLI11 definition so that it
// never falls behind: `reconsume completion bash|zsh` prints the script, and the build writes
// both into the install tree (tools/CMakeLists.txt). Completes commands, verbs, options, the
// values of options with a fixed set (--cause, --log-level) and file names for options that
// take a file.
//
// Thread safety: pure functions.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace reconsume::tools {

std::string bashCompletion(const CLI::App& app);
std::string zshCompletion(const CLI::App& app);

// `reconsume completion bash|zsh`, printing the script for `app` (the whole tool) to stdout.
void addCompletionCommand(CLI::App& app, int& exitCode);

}  // namespace reconsume::tools
