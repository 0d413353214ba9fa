// The JSON API behind `reconsume dlq serve` (the dead-letter console), apart from HTTP: a request
// (method, path, query, body) in, a status and a JSON body out. Served by console_server.hpp;
// tested in-process on the embedded broker (tests/cli/console_api_test.cpp).
//
//   GET  /api/config                 {"topic", "subscription", "readOnly", "warnings"}
//   GET  /api/stats?<filter>         the counts of `reconsume dlq stats --json`
//   GET  /api/list?<filter>&offset=&limit=   {"total", "offset", "limit", "items": [...]}
//   GET  /api/show?id=<message id>   the dead letter in full: its export JSON and "history"
//   POST /api/replay, /api/purge     body {"ids": [...] or "filter": {...}, "dryRun": bool}
//                                    → the JSON of `dlq replay|purge --json`
// <filter>: cause, reason, origin, key, category, olderThan, newerThan (as the CLI's filters).
// Bad input is 400 naming the value, an unknown id 404, replay and purge in read-only mode 403, a
// broker failure 502; never 500 for anything a request carries.
//
// Thread safety: one request at a time (the DeadLetterQueue it holds is not shared).
#pragma once

#include <map>
#include <string>

#include "reconsume/reconsume.hpp"

namespace reconsume::tools {

struct ConsoleRequest {
  std::string method;  // "GET", "POST"
  std::string path;    // "/api/list"
  std::map<std::string, std::string> query;
  std::string body;
};

struct ConsoleResponse {
  int status = 200;
  std::string body;  // JSON
};

class ConsoleApi {
 public:
  ConsoleApi(DeadLetterQueue& queue, Clock& clock, bool readOnly)
      : queue_(queue), clock_(clock), readOnly_(readOnly) {}
  ConsoleResponse handle(const ConsoleRequest& request);

 private:
  ConsoleResponse config();
  ConsoleResponse stats(const ConsoleRequest& request);
  ConsoleResponse list(const ConsoleRequest& request);
  ConsoleResponse show(const ConsoleRequest& request);
  ConsoleResponse change(const ConsoleRequest& request, bool replay);

  DeadLetterQueue& queue_;
  Clock& clock_;
  bool readOnly_;
};

// "a=1&b=x%20y" → {{"a", "1"}, {"b", "x y"}}.
std::map<std::string, std::string> parseQuery(std::string_view query);

}  // namespace reconsume::tools
