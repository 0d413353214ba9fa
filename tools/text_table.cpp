#include "text_table.hpp"

#include <algorithm>

#include "terminal.hpp"

namespace reconsume::tools {
namespace {

constexpr int kGap = 2;  // spaces between columns

bool isContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

// The byte offset where character `n` starts (or the size when there are fewer).
std::size_t offsetOf(std::string_view text, int n) {
  std::size_t at = 0;
  for (int seen = 0; at < text.size(); ++at) {
    if (isContinuation(static_cast<unsigned char>(text[at]))) continue;
    if (seen++ == n) return at;
  }
  return text.size();
}

std::string pad(std::string_view text, int width, TextTable::Align align) {
  int missing = std::max(0, width - displayWidth(text));
  std::string spaces(static_cast<std::size_t>(missing), ' ');
  return align == TextTable::Align::right ? spaces + std::string(text) : std::string(text) + spaces;
}

}  // namespace

int displayWidth(std::string_view text) {
  int width = 0;
  for (char c : text) {
    if (!isContinuation(static_cast<unsigned char>(c))) ++width;
  }
  return width;
}

std::string fitWidth(std::string_view text, int width) {
  if (width <= 0) return "";
  if (displayWidth(text) <= width) return std::string(text);
  return std::string(text.substr(0, offsetOf(text, width - 1))) + "…";
}

std::string oneLine(std::string_view text) {
  std::string out(text);
  for (auto& c : out) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) c = ' ';
  }
  return out;
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::addRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  for (auto& cell : cells) cell = oneLine(cell);
  rows_.push_back(std::move(cells));
}

std::vector<int> TextTable::columnWidths(int width) const {
  std::vector<int> widths;
  std::vector<int> floors;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const auto& column = columns_[i];
    int natural = displayWidth(column.header);
    for (const auto& row : rows_) natural = std::max(natural, displayWidth(row[i]));
    natural = std::clamp(natural, column.minWidth, std::max(column.minWidth, column.maxWidth));
    widths.push_back(natural);
    floors.push_back(std::min(natural, column.minWidth));
  }
  int total = kGap * static_cast<int>(widths.size() > 0 ? widths.size() - 1 : 0);
  for (int w : widths) total += w;
  // The shrinking columns give up width first, then the others; within each group the widest
  // gives up one character at a time, so that long columns end up level rather than one of them
  // losing everything.
  for (bool shrinking : {true, false}) {
    while (total > width) {
      std::size_t widest = widths.size();
      for (std::size_t k = 0; k < widths.size(); ++k) {
        if (columns_[k].shrinks != shrinking || widths[k] <= floors[k]) continue;
        if (widest == widths.size() || widths[k] > widths[widest]) widest = k;
      }
      if (widest == widths.size()) break;
      --widths[widest];
      --total;
    }
  }
  return widths;
}

std::string TextTable::render(int width, bool colourHeader) const {
  auto widths = columnWidths(width);
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      bool last = i + 1 == cells.size();
      std::string cell = fitWidth(cells[i], widths[i]);
      // The last column is not padded on the left-aligned side: no trailing spaces.
      if (!last || columns_[i].align == Align::right)
        cell = pad(cell, widths[i], columns_[i].align);
      if (header && colourHeader) cell = bold(cell);
      out += cell;
      if (!last) out += std::string(kGap, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + '\n';
  };
  std::vector<std::string> headers;
  for (const auto& column : columns_) headers.push_back(column.header);
  std::string out = line(headers, true);
  for (const auto& row : rows_) out += line(row, false);
  return out;
}

}  // namespace reconsume::tools
