// Whether a phase of `reconsume perf` was served from the broker's cache or read back from its
// bookies: Pulsar's counter `pulsar_ml_cache_pendingreads_entries_read_total` (entries the
// broker read from BookKeeper, Pulsar 2.11 and later), scraped from the broker's Prometheus
// endpoint (<admin URL>/metrics/) before and after each phase. The counter is the broker's, not
// the topic's: other clients' reads of the same broker count too.
//
// Thread safety: entriesReadFromBookies() is a pure function; a BrokerReads is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "connection_settings.hpp"

namespace reconsume::tools {

// The counter's value in a Prometheus text exposition, fed in pieces as they arrive (a broker's
// exposition is megabytes, and `reconsume perf` must not hold it: its memory would show as the
// client's): the sum over the counter's label sets.
class BookieReadsScan {
 public:
  void feed(std::string_view piece);
  // nullopt when the exposition has no sample of the counter. Throws Error(errc::protocol_error)
  // naming the first sample whose value is not a count.
  std::optional<std::int64_t> finish();

 private:
  void line(std::string_view text);

  std::string partial_;  // a line cut between two pieces
  std::optional<std::int64_t> total_;
  std::string problem_;
};

// The same over a whole exposition.
std::optional<std::int64_t> entriesReadFromBookies(std::string_view exposition);

class BrokerReads {
 public:
  // `settings.adminUrl` (http:// or https://) and its token and TLS; an embedded:// admin URL
  // has no bookies: read() returns nullopt and problem() says so. Throws Error(invalid_argument)
  // naming the URL when it is neither, or a TLS file when it cannot be loaded.
  BrokerReads(const ConnectionSettings& settings, std::chrono::milliseconds timeout);
  ~BrokerReads();

  // The counter now, or nullopt when the endpoint cannot be read, answers with an HTTP error or
  // lacks the counter; problem() then says which, naming the URL, and later calls return nullopt
  // without asking again.
  std::optional<std::int64_t> read();
  const std::string& problem() const { return problem_; }

 private:
  struct Endpoint;
  std::unique_ptr<Endpoint> endpoint_;  // null for embedded://
  std::string url_;
  std::chrono::milliseconds timeout_;
  std::string problem_;
};

}  // namespace reconsume::tools
