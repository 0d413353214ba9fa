#include "integration/json_lines_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace reconsume::integration {

std::vector<boost::json::object> JsonLinesRun::events(std::string_view event) const {
  std::vector<boost::json::object> found;
  for (const auto& line : lines) {
    const auto* name = line.if_contains("event");
    if (name != nullptr && name->is_string() && name->as_string() == event) found.push_back(line);
  }
  return found;
}

std::string text(const boost::json::object& line, const char* key) {
  const auto* value = line.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : "";
}

std::optional<std::string> property(const boost::json::object& line, const char* key) {
  const auto& properties = line.at("properties").as_object();
  const auto* value = properties.if_contains(key);
  if (value == nullptr) return std::nullopt;
  return std::string(value->as_string());
}

JsonLinesRun runJsonLines(std::vector<std::string> words) {
  if (words.empty()) throw std::invalid_argument("runJsonLines: no program");
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe[1]);
  if (spawned != 0) {
    ::close(pipe[0]);
    throw std::runtime_error("cannot start " + words[0] + ": " + std::strerror(spawned));
  }

  JsonLinesRun run;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      run.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  std::size_t begin = 0;
  while (begin < run.output.size()) {
    std::size_t end = run.output.find('\n', begin);
    if (end == std::string::npos) end = run.output.size();
    boost::system::error_code ec;
    auto value = boost::json::parse(std::string_view(run.output).substr(begin, end - begin), ec);
    if (!ec && value.is_object()) run.lines.push_back(std::move(value.as_object()));
    begin = end + 1;
  }
  return run;
}

}  // namespace reconsume::integration
