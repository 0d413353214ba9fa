// `reconsume dlq replay`: republishes dead letters to their origin (or --to), at --rate, with a
// progress line; --dry-run shows what would go where.
#include <cstdio>

#include "dlq_verbs.hpp"
#include "dlq_view.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

double perSecond(std::size_t count, std::chrono::milliseconds elapsed) {
  return elapsed.count() > 0 ? static_cast<double>(count) * 1000.0 / elapsed.count() : 0.0;
}

std::string rateText(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f/s", rate);
  return text;
}

std::string progressText(const ReplayProgress& progress) {
  std::string done = std::to_string(progress.confirmed) + "/" + std::to_string(progress.total);
  std::string text = "replaying " + done + " " +
                     bar(static_cast<double>(progress.confirmed),
                         static_cast<double>(std::max<std::size_t>(progress.total, 1)), 30);
  text += "  " + rateText(perSecond(progress.confirmed, progress.elapsed)) + "  " +
          humanDuration(progress.elapsed);
  if (progress.failed > 0) text += "  " + red(std::to_string(progress.failed) + " failed");
  return text;
}

void printSummary(const ReplayResult& result, std::ostream& out, std::ostream& err) {
  out << (result.replayed == result.matched ? green("replayed") : yellow("replayed")) << " "
      << result.replayed << " of " << result.matched << " dead letter"
      << (result.matched == 1 ? "" : "s") << " in " << humanDuration(result.elapsed) << " ("
      << rateText(perSecond(result.replayed, result.elapsed)) << ")\n";
  if (result.skipped > 0) {
    err << yellow("warning:", Stream::err) << " " << result.skipped
        << " skipped: they carry no REAL_TOPIC; replay them with --to <topic>\n";
  }
  if (result.missing > 0) {
    err << yellow("warning:", Stream::err) << " " << result.missing
        << " did not arrive on the dead-letter subscription (acknowledged or taken by another "
           "consumer meanwhile)\n";
  }
  for (const auto& item : result.items) {
    if (item.outcome == ReplayOutcome::failed) {
      err << red("failed:", Stream::err) << " " << item.deadLetterId.toString() << ": "
          << item.error << "\n";
    }
  }
  if (result.failed == 0 && !result.error.empty()) {
    err << red("error:", Stream::err) << " " << result.error << "\n";
  }
  if (result.notAttempted > 0) {
    err << red("error:", Stream::err) << " stopped after the first failure; " << result.notAttempted
        << " not attempted, still in the dead-letter topic\n";
  }
}

}  // namespace

int runReplay(const DlqOptions& options, const ReplayText& text, std::ostream& out,
              std::ostream& err) {
  ReplayOptions replay;
  auto check = [&] {
    replay.filter = parseFilter(options.filter);
    if (!options.limit.empty()) replay.limit = parseCount(options.limit, "--limit");
    if (!text.rate.empty()) replay.ratePerSecond = parseRate(text.rate);
    if (!text.to.empty()) replay.to = text.to;
    replay.dryRun = text.dryRun;
  };
  return runVerb(options, err, check, [&](DeadLetterQueue& queue, Clock&) {
    std::optional<ProgressLine> progress;
    if (!options.json && !replay.dryRun) {
      progress.emplace();
      replay.onProgress = [&](const ReplayProgress& p) { progress->update(progressText(p)); };
    }
    auto result = queue.replay(replay);
    if (progress) progress->finish();
    if (options.json) {
      out << replayJson(result) << "\n";
    } else if (result.dryRun) {
      if (!result.items.empty()) out << renderPlan(result, outputWidth());
      out << dim("dry run: would replay " + std::to_string(result.matched - result.skipped) +
                 " of " + std::to_string(result.matched) + "; nothing was changed")
          << "\n";
    } else {
      printSummary(result, out, err);
    }
    bool failed = result.failed > 0 || result.notAttempted > 0 || !result.error.empty();
    return failed ? kExitFailed : kExitOk;
  });
}

}  // namespace reconsume::tools
