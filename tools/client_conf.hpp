// A Pulsar client configuration file (conf/client.conf, as pulsar-admin and pulsar-client read
// it): Java properties, `key=value` or `key: value`, `#` and `!` comments. Only the keys the
// tool uses are read (see connection_settings.hpp); the others are kept and ignored.
//
// Thread safety: plain values and pure functions, except readClientConf (it reads a file).
#pragma once

#include <map>
#include <string>

namespace reconsume::tools {

struct ClientConf {
  std::string path;  // where it was read from
  std::map<std::string, std::string> values;

  // The value of `key`, "" when the file does not set it (or sets it empty).
  std::string get(const std::string& key) const;
};

// Parses the text of a properties file. Lines continued with a trailing backslash are joined;
// keys and values are trimmed. `path` is kept for messages.
ClientConf parseClientConf(const std::string& text, const std::string& path);
// Throws Error(errc::invalid_argument) naming `path` when it cannot be read.
ClientConf readClientConf(const std::string& path);

}  // namespace reconsume::tools
