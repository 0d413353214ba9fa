#include "broker_reads.hpp"

#include <charconv>
#include <cmath>

#include "admin/http_status.hpp"
#include "admin/http_transport.hpp"
#include "common/service_url.hpp"
#include "common/text.hpp"
#include "reconsume/error.hpp"

namespace reconsume::tools {
namespace {

constexpr std::string_view kCounter = "pulsar_ml_cache_pendingreads_entries_read_total";
constexpr std::string_view kPath = "/metrics/";

}  // namespace

void BookieReadsScan::feed(std::string_view piece) {
  while (!piece.empty()) {
    auto end = piece.find('\n');
    if (end == std::string_view::npos) {
      partial_.append(piece);
      return;
    }
    if (partial_.empty()) {
      line(piece.substr(0, end));
    } else {
      partial_.append(piece.substr(0, end));
      line(partial_);
      partial_.clear();
    }
    piece.remove_prefix(end + 1);
  }
}

std::optional<std::int64_t> BookieReadsScan::finish() {
  if (!partial_.empty()) {
    line(partial_);
    partial_.clear();
  }
  if (!problem_.empty()) throw Error(errc::protocol_error, problem_);
  return total_;
}

// "name{labels} value [timestamp]" or "name value [timestamp]"; comments start with '#'.
void BookieReadsScan::line(std::string_view text) {
  text = detail::trimWhitespace(text);
  if (!problem_.empty() || text.size() <= kCounter.size() || !text.starts_with(kCounter)) return;
  auto rest = text.substr(kCounter.size());
  if (rest.front() == '{') {
    auto close = rest.find('}');
    if (close == std::string_view::npos) {
      problem_ = "broker metrics: the sample '" + std::string(text) + "' has no closing '}'";
      return;
    }
    rest = rest.substr(close + 1);
  } else if (rest.front() != ' ' && rest.front() != '\t') {
    return;  // another metric whose name begins with this one's
  }
  rest = detail::trimWhitespace(rest);
  auto value = rest.substr(0, rest.find_first_of(" \t"));
  double number = 0;
  auto [at, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || at != value.data() + value.size() || !std::isfinite(number) ||
      number < 0) {
    problem_ = "broker metrics: the sample '" + std::string(text) + "' has the value '" +
               std::string(value) + "', which is not a count";
    return;
  }
  total_ = total_.value_or(0) + static_cast<std::int64_t>(std::llround(number));
}

std::optional<std::int64_t> entriesReadFromBookies(std::string_view exposition) {
  BookieReadsScan scan;
  scan.feed(exposition);
  return scan.finish();
}

struct BrokerReads::Endpoint {
  detail::admin::Endpoint where;
  detail::admin::Transport transport;
};

BrokerReads::BrokerReads(const ConnectionSettings& settings, std::chrono::milliseconds timeout)
    : url_(settings.adminUrl + std::string(kPath)), timeout_(timeout) {
  auto url = detail::ServiceUrl::parse(settings.adminUrl);
  using Kind = detail::ServiceUrl::Kind;
  if (url.kind == Kind::embedded) {
    problem_ = "the embedded broker keeps every message in memory: no bookie to read from";
    return;
  }
  if (url.kind != Kind::http && url.kind != Kind::https) {
    throw Error(errc::invalid_argument,
                "admin URL '" + settings.adminUrl + "' is not an http:// or https:// URL");
  }
  endpoint_.reset(new Endpoint{detail::admin::Endpoint::of(url),
                               detail::admin::Transport(settings.tls, settings.token)});
}

BrokerReads::~BrokerReads() = default;

std::optional<std::int64_t> BrokerReads::read() {
  // After a failure, not again: an endpoint that dropped the connection would cost a timeout per
  // phase, and a phase needs both of its readings.
  if (!endpoint_ || !problem_.empty()) return std::nullopt;
  BookieReadsScan scan;
  detail::admin::Request request;
  request.target = kPath;
  request.bodySink = [&scan](std::string_view piece) { scan.feed(piece); };
  detail::admin::Response response;
  auto status = endpoint_->transport.request(endpoint_->where, std::move(request),
                                             std::chrono::steady_clock::now() + timeout_, response);
  if (status.ok()) {
    status =
        detail::admin::statusOf("GET", url_, response.status, response.reasonPhrase, response.body);
  }
  if (!status.ok()) {
    problem_ = "broker metrics at " + url_ + " could not be read: " + status.message;
    return std::nullopt;
  }
  try {
    auto count = scan.finish();
    if (!count) {
      problem_ = "broker metrics at " + url_ + " have no " + std::string(kCounter) +
                 " (Pulsar 2.11 or later has it)";
    }
    return count;
  } catch (const Error& e) {
    problem_ = std::string(e.what()) + " (" + url_ + ")";
    return std::nullopt;
  }
}

}  // namespace reconsume::tools
