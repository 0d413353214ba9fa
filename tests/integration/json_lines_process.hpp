// Runs a test tool that prints one JSON object per line on stdout (the interop harnesses of the
// official Java and Go clients) as a subprocess, and keeps what it printed. The tools bound
// their runs themselves (--timeout-ms); this waits for the process to end.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reconsume::integration {

struct JsonLinesRun {
  int exitCode{-1};
  std::vector<boost::json::object> lines;  // every JSON line of stdout, in order
  std::string output;                      // stdout as printed, for failure messages

  // The lines whose "event" is `event` ("sent", "message", "subscribed", "error", ...).
  std::vector<boost::json::object> events(std::string_view event) const;
};

// A string field of a printed line; "" when the line has no such string.
std::string text(const boost::json::object& line, const char* key);

// A message property of a printed line ("properties": {...}); nullopt when the message does not
// have it.
std::optional<std::string> property(const boost::json::object& line, const char* key);

// Runs words[0] (searched in PATH when it has no '/') with the arguments words[1...]; stderr is
// the test's. Throws std::runtime_error when the program cannot be started.
JsonLinesRun runJsonLines(std::vector<std::string> words);

}  // namespace reconsume::integration
