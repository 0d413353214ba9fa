#include "client_conf.hpp"

#include <fstream>
#include <sstream>

#include "reconsume/error.hpp"

namespace reconsume::tools {
namespace {

std::string trim(const std::string& text) {
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; };
  std::size_t begin = 0, end = text.size();
  while (begin < end && isSpace(text[begin])) ++begin;
  while (end > begin && isSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// A line ending in an odd number of backslashes continues on the next one.
bool continues(const std::string& line) {
  std::size_t slashes = 0;
  for (auto it = line.rbegin(); it != line.rend() && *it == '\\'; ++it) ++slashes;
  return slashes % 2 == 1;
}

}  // namespace

std::string ClientConf::get(const std::string& key) const {
  auto found = values.find(key);
  return found == values.end() ? "" : found->second;
}

ClientConf parseClientConf(const std::string& text, const std::string& path) {
  ClientConf conf;
  conf.path = path;
  std::istringstream lines(text);
  std::string line, logical;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string trimmed = trim(line);
    if (logical.empty() && (trimmed.empty() || trimmed[0] == '#' || trimmed[0] == '!')) continue;
    if (continues(trimmed)) {
      logical += trimmed.substr(0, trimmed.size() - 1);
      continue;
    }
    logical += trimmed;
    auto separator = logical.find_first_of("=:");
    std::string key = trim(logical.substr(0, separator));
    std::string value = separator == std::string::npos ? "" : trim(logical.substr(separator + 1));
    if (!key.empty()) conf.values[key] = value;
    logical.clear();
  }
  return conf;
}

ClientConf readClientConf(const std::string& path) {
  std::ifstream file(path);
  std::stringstream content;
  content << file.rdbuf();
  if (!file) {
    throw Error(errc::invalid_argument, "the client configuration '" + path + "' cannot be read");
  }
  return parseClientConf(content.str(), path);
}

}  // namespace reconsume::tools
