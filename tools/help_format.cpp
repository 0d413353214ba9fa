#include "help_format.hpp"

#include <sstream>

#include "text_table.hpp"

namespace reconsume::tools {

std::string wrapText(const std::string& text, int width) {
  std::string out, line;
  std::istringstream paragraphs(text);
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    if (!out.empty()) out += "\n";
    std::istringstream words(paragraph);
    line.clear();
    for (std::string word; words >> word;) {
      if (!line.empty() && displayWidth(line) + 1 + displayWidth(word) > width) {
        out += line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
    }
    out += line;
  }
  return out;
}

WrappingFormatter::WrappingFormatter() {
  column_width(28);
}

std::string WrappingFormatter::make_option_desc(const CLI::Option* option) const {
  return wrapText(CLI::Formatter::make_option_desc(option),
                  kHelpWidth - static_cast<int>(get_column_width()));
}

std::string WrappingFormatter::make_subcommand(const CLI::App* command) const {
  std::stringstream out;
  CLI::detail::format_help(
      out, command->get_display_name(true),
      wrapText(command->get_description(), kHelpWidth - static_cast<int>(get_column_width())),
      get_column_width());
  return out.str();
}

namespace {
// Wraps what CLI11 wrote, keeping its trailing line break.
std::string wrapKeepingEnd(const std::string& text) {
  if (text.empty()) return text;
  bool endsWithBreak = text.back() == '\n';
  return wrapText(text, kHelpWidth) + (endsWithBreak ? "\n" : "");
}
}  // namespace

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  return wrapKeepingEnd(CLI::Formatter::make_description(app));
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  return wrapKeepingEnd(CLI::Formatter::make_footer(app));
}

}  // namespace reconsume::tools
