// `reconsume dlq <verb>`: the CLI11 wiring of the dead-letter verbs.
#include <iostream>

#include "commands.hpp"
#include "dlq_verbs.hpp"
#include "help_format.hpp"

namespace reconsume::tools {
namespace {

const char* const kFooter = kExitCodesFooter;

struct VerbState {
  DlqOptions options;
  std::string id;
  std::string output;
  ReplayText replay;
  PurgeText purge;
  ServeText serve;
};

CLI::App* verb(CLI::App& dlq, const char* name, const char* description, VerbState& state,
               bool filters) {
  auto* command = dlq.add_subcommand(name, description);
  command->footer(kFooter);
  if (filters) {
    addFilterOptions(*command, state.options.filter);
  }
  return command;
}

void addServeVerb(CLI::App& dlq, const std::shared_ptr<VerbState>& state, int& exitCode,
                  std::ostream& out, std::ostream& err) {
  auto* serve = verb(dlq, "serve",
                     "A dead-letter console in the browser: overview, filtered list, one dead "
                     "letter in full, replay and purge of a selection",
                     *state, false);
  serve
      ->add_option("--listen", state->serve.listen,
                   "Address to serve on; anything but loopback needs --console-token")
      ->capture_default_str();
  serve->add_option("--console-token", state->serve.token,
                    "A token every request must carry (open /?token=<token> once)");
  serve->add_option("--console-token-file", state->serve.tokenFile,
                    "File holding the console token");
  serve->add_flag("--read-only", state->serve.readOnly, "No replay or purge");
  addConnectionOptions(*serve, state->options);
  serve->callback([state, &exitCode, &out, &err] {
    exitCode = runServe(state->options, state->serve, out, err);
  });
}

}  // namespace

void addDlqCommand(CLI::App& app, int& exitCode, std::ostream& out, std::ostream& err) {
  auto* dlq = app.add_subcommand(
      "dlq", "Inspect, replay and purge the dead letters of a dead-letter topic");
  dlq->require_subcommand(1);
  dlq->footer(kFooter);
  auto state = std::make_shared<VerbState>();
  auto& options = state->options;

  auto* list = verb(*dlq, "list", "List the dead letters (changes nothing)", *state, true);
  list->add_option("--limit", options.limit, "At most this many");
  addConnectionOptions(*list, options);
  list->add_flag("--jsonl", options.jsonl, "JSON lines: one object per dead letter, for streams")
      ->excludes("--json");
  list->callback([state, &exitCode, &out, &err] { exitCode = runList(state->options, out, err); });

  auto* show = verb(*dlq, "show", "Show one dead letter in full", *state, false);
  addConnectionOptions(*show, options);
  show->add_option("id", state->id, "Its message id, ledger:entry:partition[:batch]")->required();
  show->callback(
      [state, &exitCode, &out, &err] { exitCode = runShow(state->options, state->id, out, err); });

  auto* stats = verb(*dlq, "stats", "Counts by cause, origin, reason and age", *state, true);
  addConnectionOptions(*stats, options);
  stats->callback(
      [state, &exitCode, &out, &err] { exitCode = runStats(state->options, out, err); });

  auto* exporter = verb(*dlq, "export",
                        "Write the dead letters as JSON lines: every property, the payload as "
                        "UTF-8 text or base64",
                        *state, true);
  exporter->add_option("--limit", options.limit, "At most this many");
  exporter->add_option("-o,--output", state->output, "Write to this file instead of stdout");
  addConnectionOptions(*exporter, options);
  exporter->callback([state, &exitCode, &out, &err] {
    exitCode = runExport(state->options, state->output, out, err);
  });

  auto* replay = verb(*dlq, "replay",
                      "Republish dead letters to their original topic (or --to), then "
                      "acknowledge them",
                      *state, true);
  replay->add_option("--to", state->replay.to, "Republish here instead of each REAL_TOPIC");
  replay->add_option("--rate", state->replay.rate, "At most this many per second (e.g. 200/s)");
  replay->add_option("--limit", options.limit, "At most this many");
  replay->add_flag("--dry-run", state->replay.dryRun,
                   "Show what would be replayed; change nothing");
  addConnectionOptions(*replay, options);
  replay->callback([state, &exitCode, &out, &err] {
    exitCode = runReplay(state->options, state->replay, out, err);
  });

  auto* purge = verb(*dlq, "purge", "Acknowledge (delete) dead letters", *state, true);
  purge->add_option("--limit", options.limit, "At most this many");
  purge->add_flag("--dry-run", state->purge.dryRun, "Show what would be purged; change nothing");
  purge->add_flag("--all", state->purge.all, "Purge every dead letter when no filter is given");
  addConnectionOptions(*purge, options);
  purge->callback([state, &exitCode, &out, &err] {
    exitCode = runPurge(state->options, state->purge, out, err);
  });
  addServeVerb(*dlq, state, exitCode, out, err);
}

void addDlqCommand(CLI::App& app, int& exitCode) {
  addDlqCommand(app, exitCode, std::cout, std::cerr);
}

int runDlqCommandLine(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"reconsume"};
  app.formatter(std::make_shared<WrappingFormatter>());
  app.require_subcommand(1);
  int exitCode = kExitOk;
  addDlqCommand(app, exitCode, out, err);
  refuseEmptyValues(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    err << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  return exitCode;
}

}  // namespace reconsume::tools
