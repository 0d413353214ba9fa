// `reconsume dlq stats`: how many, why, from where, how old.
#include "dlq_verbs.hpp"
#include "dlq_view.hpp"
#include "terminal.hpp"

namespace reconsume::tools {

int runStats(const DlqOptions& options, std::ostream& out, std::ostream& err) {
  return runVerb(options, err, {}, [&](DeadLetterQueue& queue, Clock& clock) {
    auto stats = queue.stats(parseFilter(options.filter));
    if (options.json) {
      out << statsJson(stats, queue.topic(), queue.subscription()) << "\n";
    } else {
      out << renderStats(stats, queue.topic(), queue.subscription(), clock.now(), outputWidth());
    }
    return kExitOk;
  });
}

}  // namespace reconsume::tools
