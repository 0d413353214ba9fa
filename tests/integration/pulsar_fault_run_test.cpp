// The fault run (fault_run.hpp) in both delivery modes: N messages, 30% transient and 2% permanent
// failures, the broker killed K times mid-run. Every message must end processed or dead-lettered
// (read back from the topics), nothing may stay unacknowledged; the transactional mode may not
// produce a duplicate final outcome, the at-least-once mode reports how many it produced. Run by
// the ctest entry reconsume_integration_fault_run (it kills the shared broker, so it runs alone)
// and, bigger, by scripts/fault-run.sh.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "integration/fault_run.hpp"
#include "integration/fault_run_broker.hpp"

namespace reconsume::integration::faultrun {
namespace {

std::string listed(const std::vector<int>& ids) {
  std::string text;
  for (int n : ids) text += (text.empty() ? "" : ", ") + std::to_string(n);
  return text;
}

// After a SIGKILL the standalone's bookie keeps re-registering itself (its old registration
// lingers in the metadata store), which costs a core and now and then fails a write with "Not
// enough non-faulty bookies"; a clean restart ends that for the tests that come next. It comes
// before the checks, so that the figures and any failure are the last lines of a long log.
void restartCleanly() {
  if (!waitForOtherTests(std::chrono::minutes(30))) {
    ADD_FAILURE() << "another test kept using the broker: not restarted cleanly";
    return;
  }
  if (!pulsarScript("stop") || !pulsarScript("start")) {
    ADD_FAILURE() << "the broker did not restart cleanly after the fault run";
  }
}

void runAndCheck(Mode mode) {
  auto config = Config::fromEnvironment(mode);
  Figures figures;
  std::string stopped;
  try {
    figures = run(config);
  } catch (const std::exception& e) {
    stopped = e.what();
  }
  bool failed = !stopped.empty() || figures.lost > 0 || figures.misplaced > 0 || !figures.settled ||
                (mode == Mode::transactional && figures.duplicates > 0);
  // Before the restart, which starts the broker's log afresh.
  if (failed) printBrokerLog("the fault run failed");
  if (config.kills > 0) restartCleanly();
  if (!stopped.empty()) FAIL() << "the fault run stopped: " << stopped;
  for (const auto& trace : figures.duplicateTraces) {
    std::printf("[ fault-run ] duplicated %s\n", trace.c_str());
  }
  std::printf("%s\n", figures.line().c_str());
  std::string byCall;
  for (const auto& [call, count] : figures.failedByCall) {
    byCall += (byCall.empty() ? "" : ", ") + call + ": " + std::to_string(count);
  }
  std::printf("[ fault-run ] mode=%s failed calls by operation: %s\n", nameOf(mode),
              byCall.empty() ? "none" : byCall.c_str());
  std::fflush(stdout);

  EXPECT_EQ(figures.lost, 0u) << "ids with no final outcome, the first: "
                              << listed(figures.missing);
  EXPECT_EQ(figures.misplaced, 0u) << "ids whose final outcome is not the one their fate decides";
  EXPECT_TRUE(figures.settled) << "left unacknowledged: " << figures.inputBacklog
                               << " on the input topic, " << figures.retryBacklog
                               << " on the retry topic";
  if (mode == Mode::transactional) {
    EXPECT_EQ(figures.duplicates, 0u)
        << "duplicate final outcomes, the first ids: " << listed(figures.duplicated);
  } else if (figures.duplicates > 0) {
    std::printf("[ fault-run ] at-least-once duplicates, the first ids: %s\n",
                listed(figures.duplicated).c_str());
  }
}

TEST(PulsarFaultRun, AtLeastOnce) {
  runAndCheck(Mode::atLeastOnce);
}

TEST(PulsarFaultRun, Transactional) {
  runAndCheck(Mode::transactional);
}

}  // namespace
}  // namespace reconsume::integration::faultrun
