// Aligned text tables for people: columns sized to their content, shrunk (with "…") to fit the
// output width — the shrinking columns first, the widest of them first — headers in bold on a
// terminal. Widths are counted in characters (UTF-8 code points), the display width of the Latin,
// Greek, Cyrillic and symbol text reasons and topic names are made of; control characters in cells
// are shown as spaces.
//
// Thread safety: a TextTable belongs to one thread; the free functions are pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace reconsume::tools {

// Characters in `text` (UTF-8 code points; bytes that are no valid UTF-8 count one each).
int displayWidth(std::string_view text);
// `text` cut to at most `width` characters, the last one "…" when something was cut.
std::string fitWidth(std::string_view text, int width);
// `text` with tabs, line breaks and other control characters replaced by spaces.
std::string oneLine(std::string_view text);

class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    int minWidth = 4;   // never narrower (nor narrower than its header when that fits)
    int maxWidth = 80;  // never wider
    Align align = Align::left;
    bool shrinks = false;  // gives up width first when the table is too wide
  };

  explicit TextTable(std::vector<Column> columns);
  // Missing cells are empty; extra cells are ignored.
  void addRow(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }

  // The table, one line per row after the header, each line at most `width` characters when the
  // columns' minimum widths allow it. No trailing spaces.
  std::string render(int width = 80, bool colourHeader = false) const;

  // The widths render() would use.
  std::vector<int> columnWidths(int width) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace reconsume::tools
