// What every command shares at the top: errors turned into messages and exit codes, and unknown
// command names caught before CLI11 reports them vaguely ("A subcommand is required").
#include <boost/json.hpp>
#include <cstdio>

#include "commands.hpp"
#include "terminal.hpp"

namespace reconsume::tools {

int runReporting(const std::function<int()>& body, bool json) {
  try {
    return body();
  } catch (const Error& e) {
    if (json) {
      std::fprintf(stderr, "%s\n", errorJson(e.what(), e.code(), exitCodeFor(e)).c_str());
    } else {
      std::fprintf(stderr, "%s %s\n", red("error:", Stream::err).c_str(), e.what());
    }
    return exitCodeFor(e);
  }
}

std::string errorJson(const std::string& message, const std::error_code& code, int exitCode) {
  return boost::json::serialize(
      boost::json::object{{"error", message}, {"code", code.message()}, {"exitCode", exitCode}});
}

void refuseEmptyValues(CLI::App& app) {
  static const CLI::Validator nonEmpty(
      [](std::string& value) {
        return value.empty() ? std::string("'' is invalid: an empty value (an unset variable?)")
                             : std::string();
      },
      "", "NON_EMPTY");
  for (auto* option : app.get_options()) {
    if (option->get_expected_min() > 0) option->check(nonEmpty);  // flags expect no value
  }
  for (auto* command : app.get_subcommands([](CLI::App*) { return true; })) {
    refuseEmptyValues(*command);
  }
}

std::string unknownCommand(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* level = &app;
  std::string path;
  for (const auto& arg : args) {
    if (arg.starts_with("-")) return "";  // options: CLI11 knows them
    auto commands = level->get_subcommands([](const CLI::App*) { return true; });
    if (commands.empty()) return "";
    std::string names;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      if (commands[i]->get_name() == arg) {
        level = commands[i];
        break;
      }
      names += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i]->get_name();
    }
    if (level->get_name() != arg) {
      return "unknown " + std::string(path.empty() ? "command" : "verb of '" + path + "'") + " '" +
             arg + "' (expected " + names + ")";
    }
    path += (path.empty() ? "" : " ") + arg;
  }
  return "";
}

}  // namespace reconsume::tools
