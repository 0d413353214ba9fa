#include "perf_report.hpp"

#include <boost/json.hpp>
#include <cstdio>
#include <cstring>
#include <optional>

#include "terminal.hpp"

namespace reconsume::tools {
namespace {

// "  read back from the bookies, not the broker's cache (entries):\n    publish 0, …\n" on
// Pulsar; nothing on embedded://, which has no bookies.
std::string bookieReadsLine(const PerfRun& run) {
  if (run.url.starts_with("embedded:")) return "";
  if (!run.brokerReadsProblem.empty()) {
    return "  read back from the bookies: unknown (" + run.brokerReadsProblem + ")\n";
  }
  std::string out = "  read back from the bookies, not the broker's cache (entries):\n    ";
  for (std::size_t i = 0; i < run.phases.size(); ++i) {
    const auto& phase = run.phases[i];
    if (i > 0) out += ", ";
    out += phase.name + " " +
           (phase.bookieEntryReads ? std::to_string(*phase.bookieEntryReads) : std::string("?"));
  }
  return out + "\n";
}

// Per second and per message of what completed; nothing, rather than an infinity or NaN, for a
// phase that stopped before any operation completed.
std::optional<double> rate(const PerfPhase& phase) {
  if (phase.messages <= 0 || phase.seconds <= 0) return std::nullopt;
  return phase.messages / phase.seconds;
}
std::optional<double> cpuMicrosPerMessage(const PerfPhase& phase) {
  if (phase.messages <= 0) return std::nullopt;
  return phase.cpuSeconds / phase.messages * 1e6;
}

// `value` with `decimals` and `unit` in a column of `width`; "-" when there is none.
std::string column(std::optional<double> value, int width, int decimals, const char* unit = "") {
  char text[64];
  if (value) {
    std::snprintf(text, sizeof text, "%*.*f%s", width - static_cast<int>(std::strlen(unit)),
                  decimals, *value, unit);
  } else {
    std::snprintf(text, sizeof text, "%*s", width, "-");
  }
  return text;
}

boost::json::value orNull(std::optional<double> value) {
  return value ? boost::json::value(*value) : boost::json::value(nullptr);
}

}  // namespace

std::string perfTable(const PerfRun& run) {
  char line[160];
  std::string out;
  std::snprintf(line, sizeof line, "\n  %-15s %11s %8s %8s %9s %10s %7s\n", "phase", "messages/s",
                "wall", "CPU", "CPU/msg", "peak RSS", "failed");
  out += line;
  for (const auto& phase : run.phases) {
    std::snprintf(line, sizeof line, "  %-15s %s %7.2fs %7.2fs %s %10s %7d\n", phase.name.c_str(),
                  column(rate(phase), 11, 0).c_str(), phase.seconds, phase.cpuSeconds,
                  column(cpuMicrosPerMessage(phase), 9, 1, "us").c_str(),
                  humanBytes(static_cast<std::uint64_t>(phase.peakRssKiB) * 1024).c_str(),
                  phase.failures);
    out += line;
  }
  out += bookieReadsLine(run);
  std::snprintf(line, sizeof line, "\n  %-15s %-15s %10s %10s %10s\n", "latency (ms)", "of", "p50",
                "p99", "p99.9");
  out += line;
  for (const auto& phase : run.phases) {
    const auto& h = phase.latency;
    std::snprintf(line, sizeof line, "  %-15s %-15s %10.3f %10.3f %10.3f\n", phase.name.c_str(),
                  phase.latencyOf.c_str(), h.quantile(0.5) * 1e3, h.quantile(0.99) * 1e3,
                  h.quantile(0.999) * 1e3);
    out += line;
  }
  return out;
}

std::string perfJson(const PerfRun& run) {
  boost::json::array phases;
  for (const auto& phase : run.phases) {
    const auto& h = phase.latency;
    phases.push_back({
        {"name", phase.name},
        {"messages", phase.messages},
        {"messagesPerSecond", orNull(rate(phase))},
        {"wallSeconds", phase.seconds},
        {"cpuSeconds", phase.cpuSeconds},
        {"cpuMicrosPerMessage", orNull(cpuMicrosPerMessage(phase))},
        {"cpuSystemSeconds", phase.cpuSystemSeconds},
        {"peakRssBytes", static_cast<std::int64_t>(phase.peakRssKiB) * 1024},
        {"failed", phase.failures},
        {"latency",
         {{"of", phase.latencyOf},
          {"count", h.count},
          {"p50", h.quantile(0.5)},
          {"p99", h.quantile(0.99)},
          {"p999", h.quantile(0.999)}}},
        {"bookieEntryReads", phase.bookieEntryReads ? boost::json::value(*phase.bookieEntryReads)
                                                    : boost::json::value(nullptr)},
    });
  }
  boost::json::object out{{"url", run.url},
                          {"messages", run.messages},
                          {"size", run.size},
                          {"window", run.window},
                          {"ioThreads", run.ioThreads},
                          {"transactional", run.transactional},
                          {"batching", run.batching},
                          {"phases", std::move(phases)}};
  if (!run.brokerReadsProblem.empty()) out["bookieEntryReadsProblem"] = run.brokerReadsProblem;
  return boost::json::serialize(out) + "\n";
}

}  // namespace reconsume::tools
