// What every `reconsume dlq` verb shares: connecting, warnings, errors and exit codes.
#include "dlq_verbs.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

// The message names the dead-letter topic asked for, when the library's words do not already.
int report(std::ostream& err, const std::string& topic, const Error& e) {
  std::string what = e.what();
  if (!topic.empty() && what.find(topic) == std::string::npos) what = topic + ": " + what;
  err << red("error:") << " " << what << "\n";
  return exitCodeFor(e, /*notFoundIsBadInput=*/true);
}

}  // namespace

int runVerb(const DlqOptions& options, std::ostream& err, const std::function<void()>& check,
            const std::function<int(DeadLetterQueue& queue, Clock& clock)>& body) {
  std::optional<Connection> connection;
  try {
    parseFilter(options.filter);
    if (!options.limit.empty()) parseCount(options.limit, "--limit");
    if (check) check();
    connection.emplace(connect(options));
    DeadLetterQueue queue(connection->client, connection->admin, options.topic,
                          connection->queueOptions);
    int code = body(queue, *connection->client.clock());
    for (const auto& warning : queue.warnings())
      err << yellow("warning:") << " " << warning << "\n";
    connection->client.close();
    return code;
  } catch (const Error& e) {
    if (connection) connection->client.close();
    return report(err, options.topic, e);
  }
}

}  // namespace reconsume::tools
