// "A fault run that counts": N messages through a handler that fails 30% of deliveries
// transiently (reconsumeLater) and 2% of messages permanently (deadLetter), while the broker is
// killed (SIGKILL) and started again K times. Final outcomes are messages on topics — processed:
// an output message on the "done" topic (and the input acknowledged); dead-lettered: a message on
// the consumer's dead-letter topic — so the count is read back from the broker at the end:
// lost = ids in neither, duplicates = extra occurrences (twice in one topic, or in both).
//
// Two delivery modes:
//   at-least-once  the output is sent, then the input acknowledged; reconsumeLater and
//                  deadLetter in their default mode. Duplicates are expected and counted.
//   transactional  the output is sent and the input acknowledged in one Transaction;
//                  reconsumeLater and deadLetter with ConsumerOptions::transactionalRetry.
//                  Neither duplicates nor losses are allowed.
//
// Environment: RECONSUME_FAULT_RUN_MESSAGES (default 10000), RECONSUME_FAULT_RUN_KILLS (default 1),
// RECONSUME_FAULT_RUN_DEADLINE (seconds until every message must have a final outcome; default
// 180 + messages / 50 + 120 per kill), RECONSUME_FAULT_RUN_LOG_ALL (set: every line the client
// logs, at any level, instead of its first 20 warnings — for a run that behaves oddly).
// scripts/fault-run.sh runs it bigger.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/admin_options.hpp"

namespace reconsume::integration::faultrun {

enum class Mode { atLeastOnce, transactional };
const char* nameOf(Mode mode);

// Where the run goes and how a broker is killed: by default the standalone of pulsar() and
// scripts/pulsar.sh kill/start; the cluster's (pulsar_cluster_test.cpp) kills one of its brokers.
struct Target {
  std::string serviceUrl;
  std::string adminUrl;
  AdminOptions adminOptions;
  // Kills a broker and starts it again; returns the seconds until it was healthy. Throws
  // std::runtime_error when a step fails.
  std::function<double()> killAndRestart;
  // Called once the input topic exists, before the first publish (e.g. to place the topic).
  std::function<void(const std::string& topic)> prepare;
  // Whether to wait, before a kill, until no other test process uses the broker (the shared
  // standalone); a private cluster needs no such care.
  bool shared{true};
  // Looking after a broker that stops answering: when the run has made no progress for a minute
  // and the broker fails its health check, it is restarted, at most twice. A broker that stopped
  // answering after a kill -9 (a standalone's bookie has been seen to keep failing writes) is the
  // broker's fault, and what the run checks is what the client kept. Absent for a target without
  // such care (the cluster).
  struct Care {
    std::function<bool()> healthy;                  // answers its health check
    std::function<double()> restart;                // clean; returns the seconds until healthy
    std::function<void(const char* why)> printLog;  // its last warnings and errors, to stderr
  };
  std::optional<Care> care;

  static Target standalone();
};

struct Config {
  Target target = Target::standalone();
  Mode mode{Mode::atLeastOnce};
  int messages{10000};
  int kills{1};
  int workers{16};
  std::chrono::seconds deadline{0};  // for every message to have a final outcome

  static Config fromEnvironment(Mode mode);
};

struct Figures {
  Mode mode{Mode::atLeastOnce};
  int messages{0};
  int kills{0};
  std::size_t processed{0};     // ids on the done topic
  std::size_t deadLettered{0};  // ids on the dead-letter topic (and not on the done topic)
  std::size_t lost{0};          // ids in neither
  std::size_t duplicates{0};    // occurrences beyond the first, over both topics
  std::size_t misplaced{0};     // ids whose final outcome is not the one their fate decides
  std::vector<int> missing;     // the first lost ids
  std::vector<int> duplicated;  // the first duplicated ids
  std::vector<std::string> duplicateTraces;         // their occurrences (Outcomes::traces)
  std::int64_t inputBacklog{-1}, retryBacklog{-1};  // once the run settled; -1: unknown
  bool settled{false};
  long deliveries{0};  // messages handed to the handler
  long repeated{0};    // deliveries of an id and RECONSUMETIMES handed to the handler before
  std::map<std::string, long> failedCalls;   // errc name -> calls that failed with it
  std::map<std::string, long> failedByCall;  // "operation errc" -> calls
  double wallSeconds{0};                     // from the first publish until settled
  double outageSeconds{0};                   // kill until healthy again, summed over the kills
  int healthRestarts{0};  // restarts of a broker that stopped answering (Target::care)

  // One line with every figure: "[ fault-run ] mode=... messages=... lost=... ...".
  std::string line() const;
};

// Runs the whole thing on config.target (killing a broker config.kills times).
Figures run(const Config& config);

}  // namespace reconsume::integration::faultrun
