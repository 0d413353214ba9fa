// Running `reconsume dlq` as a process for the dlq_cli_*_test.cpp tests: the tool's path, its
// output in temporary files, its exit code.
#include "integration/dlq_cli_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace reconsume::integration {
namespace {

// The tool: RECONSUME_CLI, else the one built with the tests (RECONSUME_CLI_DEFAULT).
std::string cliPath() {
  const char* configured = std::getenv("RECONSUME_CLI");
  if (configured != nullptr && *configured != '\0') return configured;
#ifdef RECONSUME_CLI_DEFAULT
  return RECONSUME_CLI_DEFAULT;
#else
  throw std::runtime_error("set RECONSUME_CLI to the reconsume tool (built without tools)");
#endif
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace

CliProcess::CliProcess(const Strings& args) {
  Strings words = {cliPath()};
  words.insert(words.end(), args.begin(), args.end());
  words.insert(words.begin() + 3, {"--url", pulsar().serviceUrl, "--admin-url", pulsar().adminUrl});
  if (pulsar().secureDir) {
    words.insert(words.begin() + 3, {"--tls-ca", pulsar().secureFile("ca.pem"), "--token-file",
                                     pulsar().secureFile("token.txt")});
  }
  outPath_ = temporary("out");
  errPath_ = temporary("err");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath_.c_str(), O_WRONLY | O_TRUNC,
                                   0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath_.c_str(), O_WRONLY | O_TRUNC,
                                   0);
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  int spawned = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw std::runtime_error("cannot start " + words[0] + ": " + std::strerror(spawned));
  }
}

CliProcess::~CliProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  ::unlink(outPath_.c_str());
  ::unlink(errPath_.c_str());
}

void CliProcess::killHard() {
  ::kill(pid_, SIGKILL);
}

int CliProcess::wait() {
  if (pid_ > 0) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }
  return exitCode_;
}

std::string CliProcess::out() const {
  return readFile(outPath_);
}
std::string CliProcess::err() const {
  return readFile(errPath_);
}

std::string CliProcess::temporary(const char* what) {
  std::string path = "/tmp/reconsume-dlq-cli-" + std::string(what) + "-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp: " + std::string(std::strerror(errno)));
  ::close(fd);
  return path;
}

CliRun cli(const Strings& args) {
  auto start = std::chrono::steady_clock::now();
  CliProcess process(args);
  int code = process.wait();
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return {code, process.out(), process.err(), took};
}

std::vector<boost::json::object> jsonLines(const std::string& text) {
  std::vector<boost::json::object> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(boost::json::parse(line).as_object());
  }
  return lines;
}

ClientOptions clientOptions() {
  ClientOptions options;
  if (pulsar().secureDir) {
    options.tls.caFile = pulsar().secureFile("ca.pem");
    options.token = pulsar().adminOptions().token;
  }
  return options;
}

}  // namespace reconsume::integration
