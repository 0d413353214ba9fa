#include "retry/history_elements.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace reconsume::detail::retry {
namespace {

std::vector<std::string> elementsOf(std::string_view text) {
  auto elements = lastArrayElements(text);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < elements.size(); ++i) out.emplace_back(elements[i]);
  return out;
}

TEST(HistoryElements, SplitsTheCompactFormIntoEntries) {
  EXPECT_EQ(
      elementsOf(
          R"([{"n":1,"at":2,"delay":3,"reason":"a,b]"},{"n":2,"at":2,"delay":3,"reason":""}])"),
      (std::vector<std::string>{R"({"n":1,"at":2,"delay":3,"reason":"a,b]"})",
                                R"({"n":2,"at":2,"delay":3,"reason":""})"}));
}

TEST(HistoryElements, SplitsAnyValidArrayTrimmingTheSpaceAround) {
  EXPECT_EQ(elementsOf(R"( [ "x\"]" , {"a":[1,{"b":"}"}]} ,3 ] )"),
            (std::vector<std::string>{R"("x\"]")", R"({"a":[1,{"b":"}"}]})", "3"}));
  EXPECT_TRUE(elementsOf("[]").empty());
  EXPECT_TRUE(elementsOf(" [ ] ").empty());
}

TEST(HistoryElements, KeepsOnlyTheNewestThatCanSurviveAnAppend) {
  std::string array = "[";
  for (int i = 1; i <= 20; ++i) array += (i > 1 ? "," : "") + std::to_string(i);
  array += "]";
  std::vector<std::string> expected;
  for (int i = 21 - static_cast<int>(kHistoryMaxEntries - 1); i <= 20; ++i) {
    expected.push_back(std::to_string(i));
  }
  EXPECT_EQ(elementsOf(array), expected);
}

TEST(HistoryElements, NothingForTextThatIsNotAnArray) {
  for (const char* text : {"", "{}", "\"[1]\"", "[1,", "[1]]", "[1] [2]", "[\"\\q\"]"}) {
    EXPECT_TRUE(elementsOf(text).empty()) << text;
  }
}

}  // namespace
}  // namespace reconsume::detail::retry
