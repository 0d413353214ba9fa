// The --help of every command laid out within 80 columns: CLI11 (2.1) writes each description on
// one line however long; this formatter wraps descriptions, the footer and the command's own
// description at word boundaries, continuing under the description column.
//
// Thread safety: immutable once set on an app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace reconsume::tools {

inline constexpr int kHelpWidth = 80;

// `text` broken at spaces into lines of at most `width` characters (a longer word stays whole).
std::string wrapText(const std::string& text, int width);

class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter();
  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* command) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

}  // namespace reconsume::tools
