#include "dlq_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/duration.hpp"
#include "dlq/filter.hpp"
#include "timeouts.hpp"

namespace reconsume::tools {
namespace {

[[noreturn]] void bad(const std::string& option, const std::string& value, const std::string& why) {
  throw Error(errc::invalid_argument, option + " '" + value + "' is invalid: " + why);
}

std::optional<std::chrono::milliseconds> durationOption(const std::string& option,
                                                        const std::string& value) {
  if (value.empty()) return std::nullopt;
  std::string problem;
  auto parsed = detail::tryParseDuration(value, &problem);
  if (!parsed) bad(option, value, problem + " (a duration such as 30s, 10m, 2h, 7d)");
  return parsed;
}

}  // namespace

void addConnectionOptions(CLI::App& command, DlqOptions& options) {
  addConnectionFlags(command, options.connection, kDefaultBrokerUrl, /*withAdminUrl=*/true);
  command
      .add_option("--subscription", options.subscription,
                  "The dead-letter subscription: what it has not acknowledged is a dead letter")
      ->capture_default_str();
  command
      .add_option("--timeout", options.timeout,
                  "Wait at most this long for a message the broker reports, and for connecting")
      ->capture_default_str();
  command.add_flag("--json", options.json,
                   "Machine-readable output: one JSON document (an array for lists)");
  command.add_option("topic", options.topic, "The dead-letter topic")->required();
}

void addFilterOptions(CLI::App& command, FilterText& filter) {
  command.add_option("--cause", filter.cause,
                     "exhausted | explicit | redelivered | expired | unknown");
  command.add_option("--reason", filter.reason, "Regular expression (ECMAScript) on the reason");
  command.add_option("--origin", filter.origin,
                     "Original topic (REAL_TOPIC): a topic matches its partitions too");
  command.add_option("--key", filter.key, "Partition key");
  command.add_option("--category", filter.category,
                     "Category of the failure (RECONSUME_CATEGORY); - for none");
  command.add_option("--older-than", filter.olderThan, "Dead-lettered longer ago than (e.g. 1h)");
  command.add_option("--newer-than", filter.newerThan,
                     "Dead-lettered more recently than (e.g. 10m)");
  command.add_option("--id", filter.ids, "Message id ledger:entry:partition[:batch] (repeatable)");
}

DeadLetterFilter parseFilter(const FilterText& text) {
  DeadLetterFilter filter;
  if (!text.cause.empty()) {
    if (text.cause != "exhausted" && text.cause != "explicit" && text.cause != "redelivered" &&
        text.cause != "expired" && text.cause != "unknown") {
      bad("--cause", text.cause, "expected exhausted, explicit, redelivered, expired or unknown");
    }
    filter.cause = text.cause;
  }
  if (!text.reason.empty()) filter.reason = text.reason;
  if (!text.origin.empty()) filter.origin = text.origin;
  if (!text.key.empty()) filter.key = text.key;
  if (!text.category.empty()) filter.category = text.category;
  filter.olderThan = durationOption("--older-than", text.olderThan);
  filter.newerThan = durationOption("--newer-than", text.newerThan);
  for (const auto& id : text.ids) {
    try {
      filter.ids.push_back(MessageId::parse(id));
    } catch (const Error&) {
      bad("--id", id, "expected ledger:entry:partition[:batchIndex], e.g. 12:7:-1");
    }
  }
  // The library's own checks (the regular expression, the origin's topic name) name the value
  // too; they run now so that a filter that cannot work fails before anything is connected.
  detail::dlq::CompiledFilter check(filter);
  return filter;
}

double parseRate(const std::string& text) {
  std::string number = text;
  if (number.size() > 2 && number.ends_with("/s")) number.resize(number.size() - 2);
  double rate = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), rate);
  if (ec != std::errc() || end != number.data() + number.size() || number.empty()) {
    bad("--rate", text, "expected messages per second, such as 200 or 200/s");
  }
  if (!(rate > 0) || !std::isfinite(rate) || rate > 1e9) {
    bad("--rate", text, "the rate must be more than 0 (and at most 1e9) per second");
  }
  return rate;
}

std::size_t parseCount(const std::string& text, const std::string& option) {
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value == 0) {
    bad(option, text, "expected a whole number of at least 1");
  }
  return value;
}

Connection connect(const DlqOptions& options, std::ostream& err, const Environment& environment) {
  auto settings = resolveConnection(options.connection, environment, kDefaultBrokerUrl,
                                    /*urlFromEnvironment=*/true, /*withAdminUrl=*/true);
  auto timeout = durationOption("--timeout", options.timeout);
  if (timeout && timeout->count() == 0) bad("--timeout", options.timeout, "it must be more than 0");
  printWarnings(settings, err);
  if (options.json || options.jsonl) quietenForJson(options.connection, settings);

  ClientOptions clientOptions = clientOptionsFor(settings);
  if (timeout) boundClientBy(clientOptions, *timeout);
  Connection connection{Client::connect(settings.url, clientOptions),
                        Admin::connect(settings.adminUrl, adminOptionsFor(settings)),
                        {}};
  connection.queueOptions.subscription = options.subscription;
  if (timeout) connection.queueOptions.readTimeout = *timeout;
  return connection;
}

}  // namespace reconsume::tools
