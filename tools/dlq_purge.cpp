// `reconsume dlq purge`: acknowledges the matching dead letters on the dead-letter subscription.
// Without a filter it needs --all, so that a forgotten filter does not empty the topic.
#include "dlq_verbs.hpp"
#include "dlq_view.hpp"
#include "terminal.hpp"

namespace reconsume::tools {

int runPurge(const DlqOptions& options, const PurgeText& text, std::ostream& out,
             std::ostream& err) {
  PurgeOptions purge;
  auto check = [&] {
    purge.filter = parseFilter(options.filter);
    if (!options.limit.empty()) purge.limit = parseCount(options.limit, "--limit");
    purge.dryRun = text.dryRun;
    if (purge.filter.empty() && !text.all) {
      throw Error(errc::invalid_argument,
                  "purge of '" + options.topic +
                      "' without a filter would purge every dead letter in it: give a filter "
                      "(--reason, --cause, --id, ...) or --all");
    }
  };
  return runVerb(options, err, check, [&](DeadLetterQueue& queue, Clock&) {
    auto result = queue.purge(purge);
    if (options.json) {
      out << purgeJson(result) << "\n";
    } else if (result.dryRun) {
      for (const auto& id : result.purgedIds) out << id.toString() << "\n";
      out << dim("dry run: would purge " + std::to_string(result.matched) + "; nothing was changed")
          << "\n";
    } else {
      out << green("purged") << " " << result.purged << " of " << result.matched << " dead letter"
          << (result.matched == 1 ? "" : "s") << " from " << queue.topic() << "\n";
      if (result.missing > 0) {
        err << yellow("warning:", Stream::err) << " " << result.missing
            << " did not arrive on the dead-letter subscription (acknowledged or taken by "
               "another consumer meanwhile)\n";
      }
      if (!result.error.empty()) err << red("error:", Stream::err) << " " << result.error << "\n";
    }
    return result.failed > 0 || !result.error.empty() ? kExitFailed : kExitOk;
  });
}

}  // namespace reconsume::tools
