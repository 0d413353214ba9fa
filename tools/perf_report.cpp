#include "perf_report.hpp"

#include <boost/json.hpp>
#include <cstdio>

#include "terminal.hpp"

namespace reconsume::tools {

std::string perfTable(const PerfRun& run) {
  char line[160];
  std::string out;
  std::snprintf(line, sizeof line, "\n  %-15s %11s %8s %8s %9s %10s %7s\n", "phase", "messages/s",
                "wall", "CPU", "CPU/msg", "peak RSS", "failed");
  out += line;
  for (const auto& phase : run.phases) {
    std::snprintf(line, sizeof line, "  %-15s %11.0f %7.2fs %7.2fs %7.1fus %10s %7d\n",
                  phase.name.c_str(), phase.messages / phase.seconds, phase.seconds,
                  phase.cpuSeconds, phase.cpuSeconds / phase.messages * 1e6,
                  humanBytes(static_cast<std::uint64_t>(phase.peakRssKiB) * 1024).c_str(),
                  phase.failures);
    out += line;
  }
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
        {"messagesPerSecond", phase.messages / phase.seconds},
        {"wallSeconds", phase.seconds},
        {"cpuSeconds", phase.cpuSeconds},
        {"cpuMicrosPerMessage", phase.cpuSeconds / phase.messages * 1e6},
        {"cpuSystemSeconds", phase.cpuSystemSeconds},
        {"peakRssBytes", static_cast<std::int64_t>(phase.peakRssKiB) * 1024},
        {"failed", phase.failures},
        {"latency",
         {{"of", phase.latencyOf},
          {"count", h.count},
          {"p50", h.quantile(0.5)},
          {"p99", h.quantile(0.99)},
          {"p999", h.quantile(0.999)}}},
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
  return boost::json::serialize(out) + "\n";
}

}  // namespace reconsume::tools
