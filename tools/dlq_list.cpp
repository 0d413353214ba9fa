// `reconsume dlq list`: the dead letters, one row each (--json: a JSON array; --jsonl: one JSON
// object per line).
#include "dlq_verbs.hpp"
#include "dlq_view.hpp"
#include "terminal.hpp"
#include "text_table.hpp"

namespace reconsume::tools {

int runList(const DlqOptions& options, std::ostream& out, std::ostream& err) {
  return runVerb(options, err, {}, [&](DeadLetterQueue& queue, Clock& clock) {
    std::optional<std::size_t> limit;
    if (!options.limit.empty()) limit = parseCount(options.limit, "--limit");
    auto deadLetters = queue.list(parseFilter(options.filter), limit);
    auto now = clock.now();
    if (options.jsonl) {
      for (const auto& deadLetter : deadLetters) out << listItemJson(deadLetter, now) << "\n";
      return kExitOk;
    }
    if (options.json) {
      out << "[";
      for (std::size_t i = 0; i < deadLetters.size(); ++i) {
        out << (i == 0 ? "\n  " : ",\n  ") << listItemJson(deadLetters[i], now);
      }
      out << (deadLetters.empty() ? "]\n" : "\n]\n");
      return kExitOk;
    }
    if (!deadLetters.empty()) out << renderList(deadLetters, now, outputWidth());
    out << dim(fitWidth(std::to_string(deadLetters.size()) + " dead letter" +
                            (deadLetters.size() == 1 ? "" : "s") + " in " +
                            shortTopic(queue.topic()) + " (subscription " + queue.subscription() +
                            ")",
                        outputWidth()))
        << "\n";
    return kExitOk;
  });
}

}  // namespace reconsume::tools
