// BackoffParams and BackoffRegistry of consumer_config.hpp.
#include <charconv>

#include "common/duration.hpp"
#include "reconsume/consumer_config.hpp"
#include "reconsume/error.hpp"

namespace reconsume {
namespace {

std::string show(const BackoffParams::Value& value) {
  struct Visitor {
    std::string operator()(const std::string& s) const { return '"' + s + '"'; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      char buffer[32];
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
      return std::string(buffer, end);
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return std::visit(Visitor{}, value);
}

std::shared_ptr<const RedeliveryBackoff> makeMultiplier(const BackoffParams& params) {
  MultiplierRedeliveryBackoff::Options options;
  options.min = params.duration("min", options.min);
  options.max = params.duration("max", options.max);
  options.multiplier = params.number("multiplier", options.multiplier);
  if (options.min.count() <= 0) params.fail("min", "must be greater than zero");
  if (options.max < options.min) {
    params.fail("max", "is less than min " + detail::formatDuration(options.min));
  }
  if (!(options.multiplier > 1.0)) params.fail("multiplier", "must be greater than 1");
  return std::make_shared<MultiplierRedeliveryBackoff>(options);
}

}  // namespace

BackoffParams::BackoffParams(std::string path, std::map<std::string, Value, std::less<>> values)
    : path_(std::move(path)), values_(std::move(values)) {}

bool BackoffParams::has(std::string_view key) const {
  return values_.find(key) != values_.end();
}

const BackoffParams::Value* BackoffParams::lookup(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) return nullptr;
  read_.emplace(key);
  return &it->second;
}

void BackoffParams::fail(std::string_view key, std::string_view why) const {
  std::string text = path_ + '.' + std::string(key);
  auto it = values_.find(key);
  if (it != values_.end()) text += ' ' + show(it->second);
  throw Error(errc::invalid_argument, text + ' ' + std::string(why));
}

std::chrono::milliseconds BackoffParams::duration(std::string_view key) const {
  const Value* value = lookup(key);
  if (!value) fail(key, "is missing (a duration such as \"30s\")");
  const auto* text = std::get_if<std::string>(value);
  if (!text) fail(key, "must be a duration string such as \"30s\"");
  std::string problem;
  auto parsed = detail::tryParseDuration(*text, &problem);
  if (!parsed) fail(key, "is not a duration: " + problem);
  return *parsed;
}

std::chrono::milliseconds BackoffParams::duration(std::string_view key,
                                                  std::chrono::milliseconds fallback) const {
  return has(key) ? duration(key) : fallback;
}

double BackoffParams::number(std::string_view key) const {
  const Value* value = lookup(key);
  if (!value) fail(key, "is missing (a number)");
  if (const auto* i = std::get_if<std::int64_t>(value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(value)) return *d;
  fail(key, "must be a number");
}

double BackoffParams::number(std::string_view key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

std::int64_t BackoffParams::integer(std::string_view key) const {
  const Value* value = lookup(key);
  if (!value) fail(key, "is missing (an integer)");
  if (const auto* i = std::get_if<std::int64_t>(value)) return *i;
  fail(key, "must be an integer");
}

std::int64_t BackoffParams::integer(std::string_view key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

std::string BackoffParams::string(std::string_view key) const {
  const Value* value = lookup(key);
  if (!value) fail(key, "is missing (a string)");
  if (const auto* s = std::get_if<std::string>(value)) return *s;
  fail(key, "must be a string");
}

std::string BackoffParams::string(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : fallback;
}

bool BackoffParams::boolean(std::string_view key) const {
  const Value* value = lookup(key);
  if (!value) fail(key, "is missing (true or false)");
  if (const auto* b = std::get_if<bool>(value)) return *b;
  fail(key, "must be true or false");
}

bool BackoffParams::boolean(std::string_view key, bool fallback) const {
  return has(key) ? boolean(key) : fallback;
}

std::vector<std::string> BackoffParams::unreadKeys() const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values_) {
    if (!read_.contains(key)) keys.push_back(key);
  }
  return keys;
}

BackoffRegistry::BackoffRegistry() {
  factories_.emplace("multiplier", &makeMultiplier);
}

void BackoffRegistry::add(std::string type, Factory factory) {
  if (type.empty()) {
    throw Error(errc::invalid_argument, "a redelivery backoff type needs a non-empty name");
  }
  if (!factory) {
    throw Error(errc::invalid_argument,
                "redelivery backoff type '" + type + "' needs a factory (got none)");
  }
  if (contains(type)) {
    throw Error(errc::invalid_argument,
                "redelivery backoff type '" + type + "' is already registered");
  }
  factories_.emplace(std::move(type), std::move(factory));
}

bool BackoffRegistry::contains(std::string_view type) const {
  return factories_.find(type) != factories_.end();
}

std::shared_ptr<const RedeliveryBackoff> BackoffRegistry::create(
    std::string_view type, const BackoffParams& params) const {
  auto it = factories_.find(type);
  if (it == factories_.end()) {
    std::string known;
    for (const auto& [name, factory] : factories_) {
      known += known.empty() ? "" : ", ";
      known += name;
    }
    throw Error(errc::invalid_argument, params.path() + ".type '" + std::string(type) +
                                            "' is not a registered redelivery backoff type "
                                            "(known: " +
                                            known + ")");
  }
  return it->second(params);
}

const BackoffRegistry& BackoffRegistry::builtin() {
  static const BackoffRegistry registry;
  return registry;
}

}  // namespace reconsume
