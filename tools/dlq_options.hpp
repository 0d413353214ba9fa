// What every `reconsume dlq` verb shares: where to connect (service URL, admin URL derived from
// it, token, TLS), which subscription marks the dead letters, the filters, --json, the topic. The
// options arrive as text from CLI11 and are checked here, so that every bad value gets an error
// naming it (exit code 2) before anything is read or changed.
//
// Thread safety: plain values and pure functions, except connect (it opens a client).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::tools {

// The filters as typed.
struct FilterText {
  std::string cause, reason, origin, key, category, olderThan, newerThan;
  std::vector<std::string> ids;
};

struct DlqOptions {
  std::string url = "pulsar://localhost:6650";
  std::string adminUrl;  // empty: derived from url
  std::string subscription = "reconsume-dlq";
  std::string token, tokenFile, tlsCa;
  // How long to wait for a message the broker reports, and at most for connecting.
  std::string timeout = "10s";
  bool json = false;
  std::string topic;
  FilterText filter;
  std::string limit;  // empty: none
};

// Adds --url, --admin-url, --subscription, --token, --token-file, --tls-ca, --timeout, --json and
// the <topic> positional.
void addConnectionOptions(CLI::App& command, DlqOptions& options);
// Adds --cause, --reason, --origin, --key, --older-than, --newer-than, --id (repeatable).
void addFilterOptions(CLI::App& command, FilterText& filter);

// Throws Error(errc::invalid_argument) naming the option and its value.
DeadLetterFilter parseFilter(const FilterText& text);
// "200", "200/s", "0.5/s": messages per second, > 0.
double parseRate(const std::string& text);
// A positive count; `option` names it in the error ("--limit").
std::size_t parseCount(const std::string& text, const std::string& option);

// embedded://x → the same; pulsar://host[:port] → http://host:8080; pulsar+ssl://host[:port] →
// https://host:8443. Throws invalid_argument naming a URL of another scheme.
std::string adminUrlFor(const std::string& serviceUrl);

struct Connection {
  Client client;
  Admin admin;
  DeadLetterQueueOptions queueOptions;
};
// Reads the token file (invalid_argument naming it when it cannot be read), connects the client
// (connecting bounded by --timeout) and the admin client.
Connection connect(const DlqOptions& options);

}  // namespace reconsume::tools
