// The `reconsume` binary as a user runs it: exit codes (0 success, 1 runtime failure, 2 usage
// error, an unknown command named), and a broker that cannot be reached failing every command
// that connects within its --timeout, with an error naming what the user asked for. The broker
// is a closed port on 127.0.0.1 (a socket bound and not listening: connections are refused).
#include "cli/cli_process.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "unit/refusing_port.hpp"

namespace {

using namespace std::chrono_literals;
using reconsume::testing::mentions;
using reconsume::testing::RefusingPort;

reconsume::testing::CliRun reconsume(const std::vector<std::string>& args) {
  return reconsume::testing::runCli(args);
}

// Before this bound existed, every command waited the 30 s operation timeout; 10 s bounds a hang
// generously (this is not a benchmark).
constexpr auto kWellBeforeTheOldWait = 10s;

TEST(CliProcess, DemoOnAnUnreachableBrokerFailsWithinItsTimeoutNamingItsTopic) {
  RefusingPort broker;
  auto run = reconsume({"demo", "--url", "pulsar://" + broker.hostPort(), "--timeout", "2s"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_LT(run.took, kWellBeforeTheOldWait);
  EXPECT_TRUE(mentions(run.err, "subscribing to persistent://public/default/demo-orders-"))
      << run.err;
  EXPECT_TRUE(mentions(run.err, broker.hostPort())) << run.err;
  // Not the probe of the legacy retry topic, nor the retry topic itself.
  EXPECT_FALSE(mentions(run.err, "RETRY")) << run.err;
  EXPECT_FALSE(mentions(run.err, "PARTITIONED_METADATA")) << run.err;
}

TEST(CliProcess, PerfOnAnUnreachableBrokerFailsWithinItsTimeoutNamingItsTopic) {
  RefusingPort broker;
  auto run = reconsume({"perf", "--url", "pulsar://" + broker.hostPort(), "--timeout", "2s"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_LT(run.took, kWellBeforeTheOldWait);
  EXPECT_TRUE(mentions(run.err, "persistent://public/default/reconsume-perf-plain-")) << run.err;
  EXPECT_TRUE(mentions(run.err, broker.hostPort())) << run.err;
  EXPECT_FALSE(mentions(run.err, "PARTITIONED_METADATA")) << run.err;
}

TEST(CliProcess, DlqVerbsOnAnUnreachableBrokerFailWithinTheirTimeoutNamingTheTopic) {
  RefusingPort broker;
  for (const char* verb : {"list", "stats", "replay", "purge"}) {
    std::vector<std::string> args{"dlq",
                                  verb,
                                  "--url",
                                  "pulsar://" + broker.hostPort(),
                                  "--admin-url",
                                  "http://" + broker.hostPort(),
                                  "--timeout",
                                  "2s",
                                  "orders-billing-DLQ"};
    if (std::string(verb) == "purge") args.push_back("--all");
    auto run = reconsume(args);
    EXPECT_EQ(run.code, 1) << verb << ": " << run.err;
    EXPECT_LT(run.took, kWellBeforeTheOldWait) << verb;
    EXPECT_TRUE(mentions(run.err, "orders-billing-DLQ")) << verb << ": " << run.err;
    EXPECT_TRUE(mentions(run.err, broker.hostPort())) << verb << ": " << run.err;
  }
}

TEST(CliProcess, AnUnknownCommandOrVerbIsAUsageErrorNamingIt) {
  auto run = reconsume({"frobnicate"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "unknown command 'frobnicate'")) << run.err;
  EXPECT_TRUE(mentions(run.err, "demo")) << run.err;
  run = reconsume({"dlq", "frobnicate", "topic"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "'frobnicate'")) << run.err;
  EXPECT_TRUE(mentions(run.err, "replay")) << run.err;
}

TEST(CliProcess, BadValuesAreUsageErrorsNamingThem) {
  auto run = reconsume({"demo", "--timeout", "2 parsecs"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "2 parsecs")) << run.err;
  run = reconsume({"perf", "--timeout", "0s"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "--timeout '0s'")) << run.err;
  run = reconsume({"demo", "--url", "carrier-pigeon://loft"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "carrier-pigeon://loft")) << run.err;
  run = reconsume({"perf", "--no-such-option"});
  EXPECT_EQ(run.code, 2);
}

TEST(CliProcess, HelpDocumentsTheExitCodes) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"demo", "--help"},
                                        {"perf", "--help"},
                                        {"dlq", "list", "--help"}}) {
    auto run = reconsume(args);
    EXPECT_EQ(run.code, 0) << args[0];
    EXPECT_TRUE(mentions(run.out, "Exit codes: 0 success, 1 runtime failure")) << run.out;
  }
}

}  // namespace
