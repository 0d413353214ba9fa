#include "integration/fault_run_broker.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <thread>

namespace reconsume::integration::faultrun {

namespace {

using namespace std::chrono_literals;

const char* const kTestPrograms[] = {"reconsume_integration_tests", "reconsume_behaviour_tests"};

// The arguments of process `pid`, NUL-separated; empty when it is gone.
std::string commandLine(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

long parentOf(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat(std::istreambuf_iterator<char>(in), {});
  auto close = stat.rfind(')');  // the name may hold spaces and parentheses
  if (close == std::string::npos) return 0;
  char state = 0;
  long parent = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &parent) != 2) return 0;
  return parent;
}

std::set<long> selfAndAncestors() {
  std::set<long> result;
  for (long pid = ::getpid(); pid > 1 && result.insert(pid).second;) pid = parentOf(pid);
  return result;
}

bool isTestProgram(const std::string& arguments) {
  std::string program = arguments.substr(0, arguments.find('\0'));
  program = program.substr(program.rfind('/') + 1);
  for (const char* name : kTestPrograms) {
    if (program == name) return true;
  }
  return false;
}

}  // namespace

bool pulsarScript(const std::string& command) {
  std::string line = std::string(RECONSUME_PULSAR_SCRIPT) + " " + command;
  return std::system(line.c_str()) == 0;
}

std::vector<std::string> otherBrokerUsers() {
  std::vector<std::string> users;
  auto mine = selfAndAncestors();
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return users;
  while (auto* entry = ::readdir(proc)) {
    std::string pid = entry->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (mine.contains(std::stol(pid))) continue;
    auto arguments = commandLine(pid);
    // ctest's discovery lists the tests without a broker.
    if (!isTestProgram(arguments) || arguments.find("--gtest_list_tests") != std::string::npos) {
      continue;
    }
    for (auto& c : arguments) c = c == '\0' ? ' ' : c;
    users.push_back(pid + " " + arguments);
  }
  ::closedir(proc);
  return users;
}

bool waitForOtherTests(std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  bool told = false;
  for (auto users = otherBrokerUsers(); !users.empty(); users = otherBrokerUsers()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (!told) {
      std::fprintf(stderr,
                   "[ fault-run ] waiting before the kill: another test uses the broker: %s\n",
                   users.front().c_str());
      told = true;
    }
    std::this_thread::sleep_for(2s);  // polling: another process, nothing to wait on
  }
  return true;
}

bool brokerHealthy() {
  return pulsarScript("status");
}

double restartBroker() {
  auto stopped = std::chrono::steady_clock::now();
  if (!pulsarScript("stop")) throw std::runtime_error("scripts/pulsar.sh stop failed");
  if (!pulsarScript("start")) throw std::runtime_error("scripts/pulsar.sh start failed");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
}

void printBrokerLog(const char* why) {
  std::string path;
  if (auto* pipe = ::popen((std::string(RECONSUME_PULSAR_SCRIPT) + " log").c_str(), "r")) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) path += buffer;
    ::pclose(pipe);
  }
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  // The last kShown warnings and errors; a run of the same message (the time and thread aside)
  // is one line with its count, so that a repeated complaint does not hide the ones before it.
  struct Shown {
    std::string line, message;
    int times;
  };
  constexpr std::size_t kShown = 25;
  std::deque<Shown> shown;
  std::size_t total = 0;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line); ++total) {
    auto level = line.find(" WARN ");
    if (level == std::string::npos) level = line.find(" ERROR ");
    if (level == std::string::npos) continue;
    auto message = line.substr(level);
    if (!shown.empty() && shown.back().message == message) {
      ++shown.back().times;
      continue;
    }
    shown.push_back({line.substr(0, 400), std::move(message), 1});
    if (shown.size() > kShown) shown.pop_front();
  }
  std::fprintf(stderr, "[ fault-run ] %s; the broker's last warnings and errors (%s, %zu lines):\n",
               why, path.c_str(), total);
  for (const auto& each : shown) {
    std::fprintf(stderr, "    %s%s\n", each.line.c_str(),
                 each.times > 1 ? (" (" + std::to_string(each.times) + " times)").c_str() : "");
  }
  std::fflush(stderr);
}

double killAndRestart() {
  auto killed = std::chrono::steady_clock::now();
  if (!pulsarScript("kill")) throw std::runtime_error("scripts/pulsar.sh kill failed");
  std::this_thread::sleep_for(1s);
  if (!pulsarScript("start")) throw std::runtime_error("scripts/pulsar.sh start failed");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
}

}  // namespace reconsume::integration::faultrun
