// Tables for people: aligned, within the width, cut with "…".
#include "text_table.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "lines_of.hpp"

namespace reconsume::tools {
namespace {

TEST(DisplayWidth, CountsCharactersNotBytes) {
  EXPECT_EQ(displayWidth(""), 0);
  EXPECT_EQ(displayWidth("abc"), 3);
  EXPECT_EQ(displayWidth("caf\xc3\xa9"), 4);
  EXPECT_EQ(displayWidth("█▏"), 2);
  EXPECT_EQ(displayWidth("\xe2\x82\xac\xf0\x9f\x98\x80"), 2);
}

TEST(FitWidth, CutsWholeCharactersAndMarksTheCut) {
  EXPECT_EQ(fitWidth("short", 10), "short");
  EXPECT_EQ(fitWidth("exactly10!", 10), "exactly10!");
  EXPECT_EQ(fitWidth("one too many", 11), "one too ma…");
  EXPECT_EQ(fitWidth("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3), "\xc3\xa9\xc3\xa9…");
  EXPECT_EQ(displayWidth(fitWidth("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3)), 3);
  EXPECT_EQ(fitWidth("x", 0), "");
}

TEST(OneLine, ControlCharactersBecomeSpaces) {
  EXPECT_EQ(oneLine("a\tb\nc\r\x1b"), "a b c  ");
}

TEST(TextTable, AlignsColumnsWithoutTrailingSpaces) {
  TextTable table({{"NAME", 4, 20, TextTable::Align::left, false},
                   {"COUNT", 5, 10, TextTable::Align::right, false},
                   {"NOTE", 4, 40, TextTable::Align::left, true}});
  table.addRow({"alpha", "7", "first"});
  table.addRow({"b", "1234", ""});
  EXPECT_EQ(table.render(80),
            "NAME   COUNT  NOTE\n"
            "alpha      7  first\n"
            "b       1234\n");
}

TEST(TextTable, ShrinksTheShrinkingColumnsFirstToFitTheWidth) {
  TextTable table({{"ID", 8, 24, TextTable::Align::left, false},
                   {"AGE", 3, 8, TextTable::Align::right, false},
                   {"CAUSE", 5, 9, TextTable::Align::left, false},
                   {"ORIGIN", 6, 28, TextTable::Align::left, true},
                   {"REASON", 10, 400, TextTable::Align::left, true}});
  table.addRow({"123456:78901:-1", "3d 4h", "exhausted",
                "persistent://a-tenant/a-namespace/a-very-long-topic-name",
                std::string(300, 'r') + " end"});
  for (int width : {80, 60, 40}) {
    auto lines = linesOf(table.render(width));
    ASSERT_EQ(lines.size(), 2u);
    for (const auto& line : lines) {
      EXPECT_LE(displayWidth(line), width) << line;
    }
    if (width >= 60) {
      EXPECT_EQ(lines[1].substr(0, 15), "123456:78901:-1") << "fixed columns keep their text";
    }
    EXPECT_NE(lines[1].find("…"), std::string::npos);
  }
  auto widths = table.columnWidths(80);
  EXPECT_EQ(widths[0], 15);
  EXPECT_EQ(widths[2], 9);
  // The two shrinking columns end up level: neither loses everything.
  EXPECT_EQ(widths[3] + widths[4], 80 - 15 - 5 - 9 - 2 * 4);
  EXPECT_LE(std::abs(widths[3] - widths[4]), 1);
  int total = 2 * 4;
  for (int w : widths) total += w;
  EXPECT_EQ(total, 80);
}

TEST(TextTable, ACellWithALineBreakStaysOnItsRow) {
  TextTable table(
      {{"A", 1, 10, TextTable::Align::left, false}, {"B", 1, 30, TextTable::Align::left, false}});
  table.addRow({"x", "two\nlines"});
  EXPECT_EQ(table.render(80), "A  B\nx  two lines\n");
}

}  // namespace
}  // namespace reconsume::tools
