// What every `reconsume dlq` verb shares: where to connect (service URL, admin URL derived from
// it, token, TLS), which subscription marks the dead letters, the filters, --json, the topic. The
// options arrive as text from CLI11 and are checked here, so that every bad value gets an error
// naming it (exit code 2) before anything is read or changed.
//
// Thread safety: plain values and pure functions, except connect (it opens a client).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "connection_settings.hpp"
#include "exit_codes.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::tools {

// The filters as typed.
struct FilterText {
  std::string cause, reason, origin, key, category, olderThan, newerThan;
  std::vector<std::string> ids;
};

inline constexpr const char* kDefaultBrokerUrl = "pulsar://localhost:6650";

struct DlqOptions {
  ConnectionFlags connection;  // resolved with the environment and client.conf at connect
  std::string subscription = "reconsume-dlq";
  // How long to wait for a message the broker reports, and at most for connecting.
  std::string timeout = "10s";
  bool json = false;   // one JSON document: an array for lists
  bool jsonl = false;  // JSON lines: one object per dead letter (list)
  std::string topic;
  FilterText filter;
  std::string limit;  // empty: none
};

// Adds the connection flags (connection_settings.hpp), --subscription, --timeout, --json and the
// <topic> positional.
void addConnectionOptions(CLI::App& command, DlqOptions& options);
// Adds --cause, --reason, --origin, --key, --older-than, --newer-than, --id (repeatable).
void addFilterOptions(CLI::App& command, FilterText& filter);

// Throws Error(errc::invalid_argument) naming the option and its value.
DeadLetterFilter parseFilter(const FilterText& text);
// "200", "200/s", "0.5/s": messages per second, > 0.
double parseRate(const std::string& text);
// A positive count; `option` names it in the error ("--limit").
std::size_t parseCount(const std::string& text, const std::string& option);

struct Connection {
  Client client;
  Admin admin;
  DeadLetterQueueOptions queueOptions;
};
// Resolves the connection settings (the command line, then `environment`, then client.conf;
// invalid_argument naming a setting that cannot be used), connects the client (connecting
// bounded by --timeout) and the admin client. Warnings about settings go to `err`.
Connection connect(const DlqOptions& options, std::ostream& err,
                   const Environment& environment = processEnvironment());

}  // namespace reconsume::tools
