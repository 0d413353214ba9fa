#include "cli/cli_process.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace reconsume::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// In the child: the environment asked for, then the tool.
[[noreturn]] void execTool(const std::vector<std::string>& args,
                           const CliEnvironment& environment) {
  // What the tool reads from its environment starts unset, whatever the test runner has.
  for (const char* name : {"PULSAR_SERVICE_URL", "PULSAR_ADMIN_URL", "PULSAR_AUTH_TOKEN",
                           "PULSAR_AUTH_TOKEN_FILE", "PULSAR_CLIENT_CONF", "NO_COLOR"}) {
    ::unsetenv(name);
  }
  for (const auto& [name, value] : environment.variables) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  std::vector<char*> argv;
  std::string program = RECONSUME_CLI_PATH;
  argv.push_back(program.data());
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  ::_exit(127);
}

int exitCodeOf(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

CliRun runCli(const std::vector<std::string>& args, const CliEnvironment& environment) {
  CliRun run;
  auto start = std::chrono::steady_clock::now();
  if (environment.terminal) {
    int master = -1;
    winsize size{};
    size.ws_row = 24;
    size.ws_col = static_cast<unsigned short>(environment.columns);
    pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
    if (pid == 0) execTool(args, environment);
    // Read until the tool has gone: the terminal then reports an error (EIO) instead of EOF.
    char buffer[4096];
    for (;;) {
      auto got = ::read(master, buffer, sizeof buffer);
      if (got > 0) {
        run.out.append(buffer, static_cast<std::size_t>(got));
      } else if (got < 0 && errno == EINTR) {
        continue;
      } else {
        break;
      }
    }
    ::close(master);
    run.code = exitCodeOf(pid);
  } else {
    // The output goes to files, so nothing blocks on a full pipe.
    std::string outPath = ::testing::TempDir() + "reconsume-cli-out-" + std::to_string(::getpid());
    std::string errPath = ::testing::TempDir() + "reconsume-cli-err-" + std::to_string(::getpid());
    pid_t pid = ::fork();
    if (pid == 0) {
      int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(out, 1);
      ::dup2(err, 2);
      execTool(args, environment);
    }
    run.code = exitCodeOf(pid);
    run.out = slurp(outPath);
    run.err = slurp(errPath);
    std::remove(outPath.c_str());
    std::remove(errPath.c_str());
  }
  run.took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return run;
}

}  // namespace reconsume::testing
