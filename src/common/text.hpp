// Small text helpers shared by the layers and the tools.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

namespace reconsume::detail {

// `text` without leading and trailing JSON/HTTP whitespace: space, tab, CR, LF.
inline std::string_view trimWhitespace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  auto begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

}  // namespace reconsume::detail
