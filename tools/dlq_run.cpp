// What every `reconsume dlq` verb shares: connecting, warnings, errors and exit codes.
#include "commands.hpp"
#include "dlq_verbs.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

// The message names the dead-letter topic asked for, when the library's words do not already.
// With --json or --jsonl it is one JSON object, so that a script reading the output can read
// the failure too.
int report(std::ostream& err, const DlqOptions& options, const Error& e) {
  std::string what = e.what();
  const auto& topic = options.topic;
  if (!topic.empty() && what.find(topic) == std::string::npos) what = topic + ": " + what;
  int code = exitCodeFor(e, /*notFoundIsBadInput=*/true);
  if (options.json || options.jsonl) {
    err << errorJson(what, e.code(), code) << "\n";
  } else {
    err << red("error:", Stream::err) << " " << what << "\n";
  }
  return code;
}

}  // namespace

int runVerb(const DlqOptions& options, std::ostream& err, const std::function<void()>& check,
            const std::function<int(DeadLetterQueue& queue, Clock& clock)>& body) {
  std::optional<Connection> connection;
  try {
    parseFilter(options.filter);
    if (!options.limit.empty()) parseCount(options.limit, "--limit");
    if (check) check();
    connection.emplace(connect(options, err));
    DeadLetterQueue queue(connection->client, connection->admin, options.topic,
                          connection->queueOptions);
    int code = body(queue, *connection->client.clock());
    for (const auto& warning : queue.warnings())
      err << yellow("warning:", Stream::err) << " " << warning << "\n";
    connection->client.close();
    return code;
  } catch (const Error& e) {
    if (connection) connection->client.close();
    return report(err, options, e);
  }
}

}  // namespace reconsume::tools
