// `reconsume dlq export`: JSON lines with every property and the payload, to stdout or a file.
#include <fstream>

#include "dlq_verbs.hpp"
#include "terminal.hpp"

namespace reconsume::tools {

int runExport(const DlqOptions& options, const std::string& outputFile, std::ostream& out,
              std::ostream& err) {
  return runVerb(options, err, {}, [&](DeadLetterQueue& queue, Clock&) {
    std::ofstream file;
    if (!outputFile.empty()) {
      file.open(outputFile, std::ios::binary | std::ios::trunc);
      if (!file) {
        throw Error(errc::invalid_argument, "--output '" + outputFile + "' cannot be written");
      }
    }
    std::ostream& sink = outputFile.empty() ? out : file;
    std::size_t count = 0;
    auto filter = parseFilter(options.filter);
    std::optional<std::size_t> limit;
    if (!options.limit.empty()) limit = parseCount(options.limit, "--limit");
    queue.scan(filter, [&](const DeadLetter& deadLetter) {
      sink << DeadLetterQueue::toJson(deadLetter) << '\n';
      ++count;
      return static_cast<bool>(sink) && (!limit || count < *limit);
    });
    sink.flush();
    if (!sink) {
      err << red("error:", Stream::err) << " writing the export failed after " << count
          << " dead letters\n";
      return kExitFailed;
    }
    err << dim("exported " + std::to_string(count) + " dead letter" + (count == 1 ? "" : "s") +
                   (outputFile.empty() ? "" : " to " + outputFile),
               Stream::err)
        << "\n";
    return kExitOk;
  });
}

}  // namespace reconsume::tools
