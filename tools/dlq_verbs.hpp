// The verbs of `reconsume dlq`, each a function of its options and the two output streams (so the
// tests can run them in-process), returning the exit code. runVerb does what they share: connect,
// open the queue, print its warnings, and turn errors into messages and exit codes.
//
// Thread safety: each call connects its own client; calls may run on several threads at once
// (only writing to the same streams would interleave).
#pragma once

#include <functional>
#include <ostream>

#include "dlq_options.hpp"

namespace reconsume::tools {

struct ReplayText {
  std::string to, rate;
  bool dryRun = false;
};
struct PurgeText {
  bool dryRun = false;
  bool all = false;  // required when no filter is given
};
struct ServeText {
  std::string listen = "127.0.0.1:8088";
  std::string token, tokenFile;  // --console-token, --console-token-file
  bool readOnly = false;
};

int runList(const DlqOptions& options, std::ostream& out, std::ostream& err);
int runShow(const DlqOptions& options, const std::string& id, std::ostream& out, std::ostream& err);
int runStats(const DlqOptions& options, std::ostream& out, std::ostream& err);
int runExport(const DlqOptions& options, const std::string& outputFile, std::ostream& out,
              std::ostream& err);
int runReplay(const DlqOptions& options, const ReplayText& replay, std::ostream& out,
              std::ostream& err);
int runPurge(const DlqOptions& options, const PurgeText& purge, std::ostream& out,
             std::ostream& err);
// The dead-letter console (console/): serves until SIGINT or SIGTERM, or until `stop` is set
// (tests), printing its URL on `out` first.
int runServe(const DlqOptions& options, const ServeText& serve, std::ostream& out,
             std::ostream& err);

// Runs `body(queue, clock)` on the queue `options` name (`clock`: the client's, for ages), after
// `check`, which parses the verb's own options, so that bad input fails before anything is
// connected. Error(invalid_argument) and Error(not_found) → message, exit 2; other errors →
// message, exit 1. The queue's warnings go to `err` after the body ran.
int runVerb(const DlqOptions& options, std::ostream& err, const std::function<void()>& check,
            const std::function<int(DeadLetterQueue& queue, Clock& clock)>& body);

}  // namespace reconsume::tools
