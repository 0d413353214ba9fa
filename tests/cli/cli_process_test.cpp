// The `reconsume` binary as a user runs it: exit codes (0 success, 1 runtime failure, 2 usage
// error, an unknown command named), and a broker that cannot be reached failing every command
// that connects within its --timeout, with an error naming what the user asked for. The broker
// is a closed port on 127.0.0.1 (a socket bound and not listening: connections are refused).
#include "cli/cli_process.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
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

// Every send fails on an embedded broker whose maximum message size the payload exceeds. Before
// a phase stopped at its first failure, all of them were sent and failed, and the two consume
// phases then waited out --timeout for messages that were never published (a broker whose bookie
// turned read-only failed each window of sends after a 30 s send timeout: most of an hour).
TEST(CliProcess, PerfStopsAtItsFirstFailureAndSkipsTheLaterPhases) {
  auto run = reconsume({"perf", "--url", "embedded://perf-refusing?maxMessageSize=1000", "--size",
                        "2000", "--messages", "5000", "--json"});
  EXPECT_EQ(run.code, 1) << run.err;
  auto result = boost::json::parse(run.out).as_object();
  const auto& phases = result.at("phases").as_array();
  ASSERT_EQ(phases.size(), 1u) << run.out;
  const auto& publish = phases[0].as_object();
  EXPECT_EQ(publish.at("name").as_string(), "publish");
  // Nothing completed: no rate and no CPU per message rather than an infinity; every message
  // failed or was never sent.
  EXPECT_EQ(publish.at("messages").as_int64(), 0) << run.out;
  EXPECT_TRUE(publish.at("messagesPerSecond").is_null()) << run.out;
  EXPECT_TRUE(publish.at("cpuMicrosPerMessage").is_null()) << run.out;
  EXPECT_EQ(publish.at("failed").as_int64(), 5000) << run.out;
  // One JSON error, last on stderr (the library's warnings come before it): the phase, how many
  // failed and were not started, the first failure's code.
  const auto lastLine = run.err.substr(run.err.rfind('\n', run.err.size() - 2) + 1);
  auto error = boost::json::parse(lastLine).as_object();
  const std::string text(error.at("error").as_string());
  EXPECT_TRUE(mentions(text, "publish stopped: ")) << text;
  EXPECT_TRUE(mentions(text, " sends failed (the first: ")) << text;
  EXPECT_TRUE(mentions(text, " not started, the later phases skipped")) << text;
  EXPECT_TRUE(mentions(std::string(error.at("code").as_string()), "too large")) << lastLine;
  EXPECT_EQ(error.at("exitCode").as_int64(), 1);

  // The table says the same, with "-" where there is no figure.
  run = reconsume({"perf", "--url", "embedded://perf-refusing-table?maxMessageSize=1000", "--size",
                   "2000", "--messages", "5000"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(mentions(run.err, "error: publish stopped: ")) << run.err;
  EXPECT_TRUE(mentions(run.out, "  publish                   -")) << run.out;
  EXPECT_FALSE(mentions(run.out, "consume + ack")) << run.out;
  EXPECT_FALSE(mentions(run.out, "reconsumeLater")) << run.out;
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
