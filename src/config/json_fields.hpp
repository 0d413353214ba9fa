// Typed reading of a JSON object for the configuration loaders, with errors that name the full
// path of the key ("retry.exponential.multiplier") and the value, and a check that every key of
// the object was one the loader knows.
//
// Thread safety: an instance belongs to one thread (it records which keys were read).
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace reconsume::detail::config {

// The value as JSON text, shortened for error messages.
std::string showJson(const boost::json::value& value);

// Throws Error(errc::invalid_argument) "<path> <value> <why>".
[[noreturn]] void failJson(const std::string& path, const boost::json::value& value,
                           std::string_view why);

class JsonFields {
 public:
  // `path`: where `object` is ("" for the document itself, "retry", "retry.exponential").
  JsonFields(const boost::json::object& object, std::string path);

  // Each returns nothing when the key is absent and throws when its value has another type.
  const boost::json::value* find(std::string_view key);
  std::optional<std::string> string(std::string_view key);
  std::optional<std::int64_t> integer(std::string_view key);
  std::optional<int> int32(std::string_view key);
  std::optional<double> number(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  std::optional<std::chrono::milliseconds> duration(std::string_view key);  // "30s"
  const boost::json::object* object(std::string_view key);
  const boost::json::array* array(std::string_view key);

  std::string pathOf(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, std::string_view why) const;
  // Throws naming the first key no accessor asked for.
  void rejectUnknownKeys() const;

 private:
  const boost::json::object& object_;
  std::string path_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace reconsume::detail::config
