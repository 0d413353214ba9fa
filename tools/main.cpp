// reconsume — the command-line tool: a demo of retries and dead letters, and (with the network
// backend and dead-letter inspection) tools for operating them on Pulsar.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"
#include "reconsume/error.hpp"
#include "terminal.hpp"

int main(int argc, char** argv) {
  CLI::App app{"reconsume: retry topics and dead letters for Apache Pulsar"};
  app.require_subcommand(1);
  int exitCode = 0;
  reconsume::tools::addDemoCommand(app, exitCode);
  reconsume::tools::addDlqCommand(app, exitCode);
  reconsume::tools::addPerfCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help is success; anything else the parser refuses is bad input (exit code 2).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const reconsume::Error& e) {
    std::fprintf(stderr, "%s %s\n", reconsume::tools::red("error:").c_str(), e.what());
    return 2;
  }
  return exitCode;
}
