// The `reconsume` binary as a user runs it: exit codes (0 success, 1 runtime failure, 2 usage
// error, an unknown command named), and a broker that cannot be reached failing every command
// that connects within its --timeout, with an error naming what the user asked for. The broker
// is a closed port on 127.0.0.1 (a socket bound and not listening: connections are refused).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit/refusing_port.hpp"

namespace {

using namespace std::chrono_literals;
using reconsume::testing::RefusingPort;

struct Run {
  int code = -1;
  std::string out, err;
  std::chrono::milliseconds took{0};
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs the tool with `args`; its output goes to files, so nothing blocks on a full pipe.
Run reconsume(const std::vector<std::string>& args) {
  std::string outPath = testing::TempDir() + "reconsume-cli-out-" + std::to_string(getpid());
  std::string errPath = testing::TempDir() + "reconsume-cli-err-" + std::to_string(getpid());
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    std::string program = RECONSUME_CLI_PATH;
    argv.push_back(program.data());
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  Run run;
  int status = 0;
  waitpid(pid, &status, 0);
  run.took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = slurp(outPath);
  run.err = slurp(errPath);
  std::remove(outPath.c_str());
  std::remove(errPath.c_str());
  return run;
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
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
