#include "console/console_api.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <vector>

#include "dlq_options.hpp"
#include "dlq_view.hpp"

namespace reconsume::tools {
namespace {

ConsoleResponse json(int status, const boost::json::value& value) {
  return {status, boost::json::serialize(value)};
}

ConsoleResponse failure(int status, const std::string& message) {
  return json(status, boost::json::object{{"error", message}});
}

std::string param(const std::map<std::string, std::string>& query, const char* name) {
  auto found = query.find(name);
  return found == query.end() ? "" : found->second;
}

using Names = std::vector<std::string_view>;

const Names kFilterNames{"cause", "reason", "origin", "key", "category", "olderThan", "newerThan"};

Names filterNamesAnd(std::initializer_list<std::string_view> extra) {
  Names names = kFilterNames;
  names.insert(names.end(), extra);
  return names;
}

// A name the API does not know is refused, never ignored: a misspelt filter ("older_than")
// dropped silently would widen a purge to dead letters the caller meant to keep.
void refuseUnknown(std::string_view name, std::string_view what, const Names& known) {
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string expected;
  for (auto candidate : known) {
    if (!expected.empty()) expected += ", ";
    expected += candidate;
  }
  throw Error(errc::invalid_argument, "unknown " + std::string(what) + " '" + std::string(name) +
                                          "': expected one of " + expected);
}

void refuseUnknownParameters(const std::map<std::string, std::string>& query, const Names& known) {
  for (const auto& [name, value] : query) refuseUnknown(name, "parameter", known);
}

FilterText filterFrom(const std::map<std::string, std::string>& fields) {
  FilterText text;
  text.cause = param(fields, "cause");
  text.reason = param(fields, "reason");
  text.origin = param(fields, "origin");
  text.key = param(fields, "key");
  text.category = param(fields, "category");
  text.olderThan = param(fields, "olderThan");
  text.newerThan = param(fields, "newerThan");
  return text;
}

std::size_t number(const std::string& text, const char* name, std::size_t fallback,
                   std::size_t most) {
  if (text.empty()) return fallback;
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > most) {
    throw Error(errc::invalid_argument, std::string(name) + " '" + text +
                                            "' is invalid: expected a whole number up to " +
                                            std::to_string(most));
  }
  return value;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decodeComponent(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 &&
               hexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::int64_t epochMs(std::chrono::system_clock::time_point at) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

}  // namespace

std::map<std::string, std::string> parseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto equals = pair.find('=');
    auto name = decodeComponent(pair.substr(0, equals));
    out[name] = equals == std::string_view::npos ? "" : decodeComponent(pair.substr(equals + 1));
  }
  return out;
}

ConsoleResponse ConsoleApi::handle(const ConsoleRequest& request) {
  try {
    bool get = request.method == "GET";
    if (request.path == "/api/config") return get ? config() : failure(405, "use GET");
    if (request.path == "/api/stats") return get ? stats(request) : failure(405, "use GET");
    if (request.path == "/api/list") return get ? list(request) : failure(405, "use GET");
    if (request.path == "/api/show") return get ? show(request) : failure(405, "use GET");
    if (request.path == "/api/replay" || request.path == "/api/purge") {
      if (request.method != "POST") return failure(405, "use POST");
      if (readOnly_) {
        return failure(403, "this console is read-only (reconsume dlq serve --read-only)");
      }
      return change(request, request.path == "/api/replay");
    }
    return failure(404, "no such API: " + request.path);
  } catch (const Error& e) {
    if (e.code() == errc::invalid_argument) return failure(400, e.what());
    if (e.code() == errc::not_found) return failure(404, e.what());
    return failure(502, e.what());  // the broker or the network, not the request
  }
}

ConsoleResponse ConsoleApi::config() {
  boost::json::array warnings;
  for (const auto& warning : queue_.warnings()) warnings.emplace_back(warning);
  return json(200, boost::json::object{{"topic", queue_.topic()},
                                       {"subscription", queue_.subscription()},
                                       {"readOnly", readOnly_},
                                       {"warnings", std::move(warnings)}});
}

ConsoleResponse ConsoleApi::stats(const ConsoleRequest& request) {
  refuseUnknownParameters(request.query, kFilterNames);
  auto result = queue_.stats(parseFilter(filterFrom(request.query)));
  return {200, statsJson(result, queue_.topic(), queue_.subscription())};
}

ConsoleResponse ConsoleApi::list(const ConsoleRequest& request) {
  refuseUnknownParameters(request.query, filterNamesAnd({"offset", "limit"}));
  auto filter = parseFilter(filterFrom(request.query));
  auto offset = number(param(request.query, "offset"), "offset", 0, 100'000'000);
  auto limit = number(param(request.query, "limit"), "limit", 50, 1000);
  auto now = clock_.now();
  boost::json::array items;
  // One pass: every match is counted (the page says how many there are), the page's are kept.
  std::size_t index = 0;
  std::size_t total = queue_.scan(filter, [&](const DeadLetter& deadLetter) {
    if (index >= offset && items.size() < limit) {
      items.push_back(boost::json::parse(listItemJson(deadLetter, now)));
    }
    ++index;
    return true;
  });
  return json(
      200,
      boost::json::object{
          {"total", total}, {"offset", offset}, {"limit", limit}, {"items", std::move(items)}});
}

ConsoleResponse ConsoleApi::show(const ConsoleRequest& request) {
  refuseUnknownParameters(request.query, {"id"});
  auto idText = param(request.query, "id");
  MessageId id;
  try {
    id = MessageId::parse(idText);
  } catch (const Error&) {
    return failure(400, "id '" + idText + "' is not a message id (ledger:entry:partition[:batch])");
  }
  auto deadLetter = queue_.show(id);
  auto out = boost::json::parse(DeadLetterQueue::toJson(deadLetter)).as_object();
  out["ageMs"] = deadLetter.age(clock_.now()).count();
  out["category"] = deadLetter.category ? boost::json::value(*deadLetter.category) : nullptr;
  boost::json::array history;
  for (const auto& hop : deadLetter.history) {
    history.push_back(boost::json::object{{"count", hop.count},
                                          {"at", epochMs(hop.at)},
                                          {"delayMs", hop.delay.count()},
                                          {"reason", hop.reason},
                                          {"category", hop.category}});
  }
  out["history"] = std::move(history);
  return json(200, out);
}

ConsoleResponse ConsoleApi::change(const ConsoleRequest& request, bool replay) {
  boost::json::object body;
  try {
    body = boost::json::parse(request.body).as_object();
  } catch (const std::exception& e) {
    return failure(400, std::string("the body is not a JSON object: ") + e.what());
  }
  for (const auto& [name, value] : body) refuseUnknown(name, "field", {"ids", "filter", "dryRun"});
  // Each field has one type; anything else is refused rather than read as absent or false
  // ("dryRun": "true" must not purge for real).
  DeadLetterFilter filter;
  if (const auto* given = body.if_contains("filter")) {
    if (!given->is_object()) {
      return failure(400, "filter is " + boost::json::serialize(*given) +
                              ": expected an object of filter fields");
    }
    std::map<std::string, std::string> fields;
    for (const auto& [name, value] : given->as_object()) {
      refuseUnknown(name, "filter field", kFilterNames);
      if (!value.is_string()) {
        return failure(400, "filter field '" + std::string(name) + "' is " +
                                boost::json::serialize(value) + ": expected a string");
      }
      fields[std::string(name)] = std::string(value.as_string());
    }
    filter = parseFilter(filterFrom(fields));
  }
  if (const auto* ids = body.if_contains("ids")) {
    if (!ids->is_array()) {
      return failure(
          400, "ids is " + boost::json::serialize(*ids) + ": expected an array of message ids");
    }
    for (const auto& id : ids->as_array()) {
      std::string text = id.is_string() ? std::string(id.as_string()) : boost::json::serialize(id);
      try {
        filter.ids.push_back(MessageId::parse(text));
      } catch (const Error&) {
        return failure(400, "id '" + text + "' is not a message id");
      }
    }
  }
  if (filter.empty()) {
    return failure(400, std::string("select dead letters (ids) or give a filter: ") +
                            (replay ? "replay" : "purge") + " of everything is not offered here");
  }
  bool dry = false;
  if (const auto* dryRun = body.if_contains("dryRun")) {
    if (!dryRun->is_bool()) {
      return failure(400,
                     "dryRun is " + boost::json::serialize(*dryRun) + ": expected true or false");
    }
    dry = dryRun->as_bool();
  }
  if (replay) {
    ReplayOptions options;
    options.filter = std::move(filter);
    options.dryRun = dry;
    return {200, replayJson(queue_.replay(options))};
  }
  PurgeOptions options;
  options.filter = std::move(filter);
  options.dryRun = dry;
  return {200, purgeJson(queue_.purge(options))};
}

}  // namespace reconsume::tools
