// What `reconsume perf` reports: per phase the rate, the CPU it cost, the peak resident set, the
// failures, latency percentiles (p50, p99, p99.9) read from the client's own histograms
// (metrics.hpp) and, on Pulsar, the entries the broker read back from its bookies instead of its
// cache (broker_reads.hpp) — as a table for people or as one JSON object (--json).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/metrics.hpp"

namespace reconsume::tools {

struct PerfPhase {
  std::string name;
  int messages = 0;  // completed: what the rate and CPU per message are over
  double seconds = 0;
  double cpuSeconds = 0;        // user + system
  double cpuSystemSeconds = 0;  // of cpuSeconds, in the kernel
  long peakRssKiB = 0;
  int failures = 0;
  std::string latencyOf;  // what the latency measures: "send", "acknowledge", "reconsumeLater"
  HistogramData latency;  // seconds
  // Entries the broker read from its bookies during the phase (a broker-wide counter); nullopt
  // when unknown: embedded://, or the broker's metrics could not be read.
  std::optional<std::int64_t> bookieEntryReads;
};

struct PerfRun {
  std::string url;
  int messages = 0, size = 0, window = 0, ioThreads = 0;
  bool transactional = false;
  bool batching = true;
  std::vector<PerfPhase> phases;
  std::string brokerReadsProblem;  // why bookieEntryReads is unknown; "" when known
};

// Two tables within 80 columns: rates and costs, then latencies in milliseconds; between them, on
// Pulsar, the entries read back from the bookies per phase (or why they are unknown).
std::string perfTable(const PerfRun& run);
// {"url": …, "messages": …, "phases": [{"name", "messages" (completed), "messagesPerSecond",
// "wallSeconds", "cpuSeconds", "cpuMicrosPerMessage" (both null when none completed),
// "cpuSystemSeconds", "peakRssBytes", "failed" (failed or not started),
// "latency": {"of", "count", "p50", "p99", "p999"} (seconds), "bookieEntryReads" (null when
// unknown)}], "bookieEntryReadsProblem" (only when unknown: why)}
std::string perfJson(const PerfRun& run);

}  // namespace reconsume::tools
