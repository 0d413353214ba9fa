// `reconsume dlq show <topic> <id>`: one dead letter in full.
#include "dlq/json_export.hpp"
#include "dlq_verbs.hpp"
#include "dlq_view.hpp"
#include "terminal.hpp"

namespace reconsume::tools {

int runShow(const DlqOptions& options, const std::string& id, std::ostream& out,
            std::ostream& err) {
  MessageId parsed;
  auto check = [&] {
    try {
      parsed = MessageId::parse(id);
    } catch (const Error&) {
      throw Error(errc::invalid_argument,
                  "id '" + id + "' is invalid: expected ledger:entry:partition[:batchIndex]");
    }
  };
  return runVerb(options, err, check, [&](DeadLetterQueue& queue, Clock& clock) {
    auto deadLetter = queue.show(parsed);
    if (options.json) {
      out << DeadLetterQueue::toJson(deadLetter) << "\n";
    } else {
      out << renderShow(deadLetter, clock.now(), outputWidth());
    }
    return kExitOk;
  });
}

}  // namespace reconsume::tools
