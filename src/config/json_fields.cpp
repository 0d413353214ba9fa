#include "config/json_fields.hpp"

#include <boost/json/serialize.hpp>
#include <charconv>
#include <limits>

#include "common/duration.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::config {

std::string showJson(const boost::json::value& value) {
  constexpr std::size_t kMax = 80;
  std::string text;
  if (value.is_double()) {
    // Boost.JSON writes 1.5 as "1.5E0"; show it as the user likely wrote it.
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.get_double());
    text.assign(buffer, end);
  } else {
    text = boost::json::serialize(value);
  }
  if (text.size() > kMax) text = text.substr(0, kMax - 3) + "...";
  return text;
}

void failJson(const std::string& path, const boost::json::value& value, std::string_view why) {
  throw Error(errc::invalid_argument, path + ' ' + showJson(value) + ' ' + std::string(why));
}

JsonFields::JsonFields(const boost::json::object& object, std::string path)
    : object_(object), path_(std::move(path)) {}

std::string JsonFields::pathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + '.' + std::string(key);
}

void JsonFields::fail(std::string_view key, std::string_view why) const {
  const boost::json::value* value = object_.if_contains(key);
  if (!value) throw Error(errc::invalid_argument, pathOf(key) + ' ' + std::string(why));
  failJson(pathOf(key), *value, why);
}

const boost::json::value* JsonFields::find(std::string_view key) {
  read_.emplace(key);
  return object_.if_contains(key);
}

std::optional<std::string> JsonFields::string(std::string_view key) {
  const auto* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_string()) fail(key, "must be a string");
  return std::string(value->get_string());
}

std::optional<std::int64_t> JsonFields::integer(std::string_view key) {
  const auto* value = find(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) fail(key, "is too large");
  fail(key, "must be an integer");
}

std::optional<int> JsonFields::int32(std::string_view key) {
  auto value = integer(key);
  if (!value) return std::nullopt;
  if (*value < std::numeric_limits<int>::min() || *value > std::numeric_limits<int>::max()) {
    fail(key, "is out of range (a 32-bit integer)");
  }
  return static_cast<int>(*value);
}

std::optional<bool> JsonFields::boolean(std::string_view key) {
  const auto* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_bool()) fail(key, "must be true or false");
  return value->get_bool();
}

std::optional<double> JsonFields::number(std::string_view key) {
  const auto* value = find(key);
  if (!value) return std::nullopt;
  if (value->is_int64()) return static_cast<double>(value->get_int64());
  if (value->is_uint64()) return static_cast<double>(value->get_uint64());
  if (value->is_double()) return value->get_double();
  fail(key, "must be a number");
}

std::optional<std::chrono::milliseconds> JsonFields::duration(std::string_view key) {
  const auto* value = find(key);
  if (!value) return std::nullopt;
  if (!value->is_string()) fail(key, "must be a duration string such as \"30s\" or \"250ms\"");
  std::string problem;
  auto parsed = tryParseDuration(value->get_string(), &problem);
  if (!parsed) fail(key, "is not a duration: " + problem);
  return parsed;
}

const boost::json::object* JsonFields::object(std::string_view key) {
  const auto* value = find(key);
  if (!value) return nullptr;
  if (!value->is_object()) fail(key, "must be an object");
  return &value->get_object();
}

const boost::json::array* JsonFields::array(std::string_view key) {
  const auto* value = find(key);
  if (!value) return nullptr;
  if (!value->is_array()) fail(key, "must be an array");
  return &value->get_array();
}

void JsonFields::rejectUnknownKeys() const {
  for (const auto& [key, value] : object_) {
    if (!read_.contains(std::string_view(key))) {
      std::string known;
      for (const auto& name : read_) known += (known.empty() ? "" : ", ") + name;
      throw Error(errc::invalid_argument, "unknown key '" + pathOf(key) + "' (value " +
                                              showJson(value) + "); the keys known here are " +
                                              known);
    }
  }
}

}  // namespace reconsume::detail::config
