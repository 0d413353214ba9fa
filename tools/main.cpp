// reconsume — the command-line tool: a demo of retries and dead letters, and (with the network
// backend and dead-letter inspection) tools for operating them on Pulsar. Exit codes: 0 success,
// 1 runtime failure (network, broker), 2 usage error (exit_codes.hpp). Connection settings come
// from the command line, the environment and a client.conf (connection_settings.hpp).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"
#include "completion.hpp"
#include "help_format.hpp"
#include "reconsume/error.hpp"
#include "terminal.hpp"

int main(int argc, char** argv) {
  using namespace reconsume::tools;
  CLI::App app{"reconsume: retry topics and dead letters for Apache Pulsar", "reconsume"};
  app.formatter(std::make_shared<WrappingFormatter>());  // before the commands: they copy it
  app.require_subcommand(1);
  app.footer(kExitCodesFooter);
  app.set_version_flag("--version", std::string("reconsume ") + RECONSUME_VERSION,
                       "Print the version and exit");
  int exitCode = kExitOk;
  addDemoCommand(app, exitCode);
  addDlqCommand(app, exitCode);
  addPerfCommand(app, exitCode);
  addCompletionCommand(app, exitCode);
  refuseEmptyValues(app);
  if (auto unknown = unknownCommand(app, std::vector<std::string>(argv + 1, argv + argc));
      !unknown.empty()) {
    std::fprintf(stderr, "%s %s\nRun with --help for more information.\n",
                 red("error:", Stream::err).c_str(), unknown.c_str());
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help is success; anything else the parser refuses is a usage error.
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  } catch (const reconsume::Error& e) {
    std::fprintf(stderr, "%s %s\n", red("error:", Stream::err).c_str(), e.what());
    return exitCodeFor(e);
  }
  return exitCode;
}
