// What every `reconsume dlq` verb shares: connecting, warnings, errors and exit codes.
#include "dlq_verbs.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

int report(std::ostream& err, const Error& e) {
  err << red("error:") << " " << e.what() << "\n";
  bool badInput = e.code() == errc::invalid_argument || e.code() == errc::not_found;
  return badInput ? kExitBadInput : kExitFailed;
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
    return report(err, e);
  }
}

}  // namespace reconsume::tools
