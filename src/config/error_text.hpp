// The text an Error was built with, for errors that are caught and reported again with more
// context ("retry.levels: delay level 3 'x' is invalid"): std::system_error::what() appends
// ": <category message>", which would otherwise repeat at each level.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

namespace reconsume::detail::config {

inline std::string errorText(const std::system_error& error) {
  std::string_view text = error.what();
  std::string suffix = ": " + error.code().message();
  if (text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
    text.remove_suffix(suffix.size());
  }
  return std::string(text);
}

}  // namespace reconsume::detail::config
