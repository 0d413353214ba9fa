#include "retry/retry_history.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace reconsume::detail::retry {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

const HistoryEntry kEntry{7, std::chrono::system_clock::time_point(1'700'000'000'000ms), 30s,
                          "late"};
const std::string kEntryJson = R"({"n":7,"at":1700000000000,"delay":30000,"reason":"late"})";

bool isJsonArray(const std::string& text) {
  boost::system::error_code error;
  auto value = json::parse(text, error);
  return !error && value.is_array();
}

TEST(RetryHistory, StartsAnArrayWhenThereIsNone) {
  EXPECT_EQ(appendHistory(nullptr, kEntry), "[" + kEntryJson + "]");
}

TEST(RetryHistory, AppendsToItsOwnCompactFormVerbatim) {
  std::string previous =
      R"([{"n":1,"at":5,"delay":1000,"reason":"a \"quoted\" \\ reason \u0001 \/ é €"},)"
      R"({"n":-2,"at":0,"delay":0,"reason":""}])";
  EXPECT_EQ(appendHistory(&previous, kEntry),
            previous.substr(0, previous.size() - 1) + "," + kEntryJson + "]");
}

TEST(RetryHistory, AppendsToAnyValidArrayKeepingItsElementsAsWritten) {
  std::string previous = "[ {\"n\" : 1} ,\n\t\"text, with ] and [\" , [1,[2]], null, 1.5e3 ]";
  EXPECT_EQ(appendHistory(&previous, kEntry),
            "[{\"n\" : 1},\"text, with ] and [\",[1,[2]],null,1.5e3," + kEntryJson + "]");
}

// Whatever the previous value, the result is a valid array that keeps the previous elements
// exactly when the previous value was a valid JSON array (as Boost.JSON judges it). This checks
// the compact fast path against the full parser on texts close to the compact form.
TEST(RetryHistory, AcceptsExactlyTheValidArrays) {
  const std::string good = R"({"n":1,"at":2,"delay":3,"reason":"r"})";
  const std::vector<std::string> cases = {
      "[]",
      "[" + good + "]",
      "[" + good + "," + good + "]",
      "[" + good + ",]",
      "[" + good + good + "]",
      "[" + good,
      "[" + good + "]x",
      "[" + good + "] ",
      R"([{"n":01,"at":2,"delay":3,"reason":"r"}])",
      R"([{"n":-,"at":2,"delay":3,"reason":"r"}])",
      R"([{"n":1.5,"at":2,"delay":3,"reason":"r"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"bad \x"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"\u12"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"\u00e9"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"\ud83d\ude00"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"\ud83d"}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"\ude00x"}])",
      "[{\"n\":1,\"at\":2,\"delay\":3,\"reason\":\"tab\there\"}]",
      "[{\"n\":1,\"at\":2,\"delay\":3,\"reason\":\"bad \xC3 utf8\"}]",
      "[{\"n\":1,\"at\":2,\"delay\":3,\"reason\":\"overlong \xC0\xAF\"}]",
      "[{\"n\":1,\"at\":2,\"delay\":3,\"reason\":\"surrogate \xED\xA0\x80\"}]",
      "[{\"n\":1,\"at\":2,\"delay\":3,\"reason\":\"ok \xF0\x9F\x98\x80\"}]",
      R"([{"n":1,"at":2,"delay":3,"reason":"unterminated}])",
      R"([{"n":1,"at":2,"delay":3,"reason":"r","extra":true}])",
      R"([{"at":2,"n":1,"delay":3,"reason":"r"}])",
      R"({"n":1})",
      "",
  };
  for (const auto& previous : cases) {
    auto result = appendHistory(&previous, kEntry);
    auto parsed = json::parse(result).as_array();  // throws if the result is not valid JSON
    if (isJsonArray(previous)) {
      EXPECT_EQ(parsed.size(), json::parse(previous).as_array().size() + 1) << previous;
    } else {
      EXPECT_EQ(result, "[" + kEntryJson + "]") << previous;
    }
  }
}

TEST(RetryHistory, DropsTheOldestBeyondEightEntries) {
  std::string history;
  for (int n = 1; n <= 10; ++n) {
    HistoryEntry entry = kEntry;
    entry.count = n;
    history = appendHistory(n == 1 ? nullptr : &history, entry);
  }
  auto entries = json::parse(history).as_array();
  ASSERT_EQ(entries.size(), kHistoryMaxEntries);
  EXPECT_EQ(entries.front().at("n").as_int64(), 3);
  EXPECT_EQ(entries.back().at("n").as_int64(), 10);
}

TEST(RetryHistory, DropsTheOldestBeyond4KiB) {
  std::string longReason(1500, 'x');
  std::string history;
  for (int n = 1; n <= 4; ++n) {
    HistoryEntry entry{n, kEntry.at, 1s, longReason};
    history = appendHistory(n == 1 ? nullptr : &history, entry);
    EXPECT_LE(history.size(), kHistoryMaxBytes);
  }
  auto entries = json::parse(history).as_array();
  ASSERT_EQ(entries.size(), 2u);  // each entry is over 1.5 KiB
  EXPECT_EQ(entries.front().at("n").as_int64(), 3);
}

TEST(RetryHistory, ShortensTheReasonWhenTheEntryAloneIsTooLarge) {
  std::string huge(10'000, '"');  // each becomes \" when escaped
  HistoryEntry entry{1, kEntry.at, 1s, huge};
  auto history = appendHistory(nullptr, entry);
  EXPECT_LE(history.size(), kHistoryMaxBytes);
  EXPECT_GE(history.size(), kHistoryMaxBytes - 1);  // an escape is 2 bytes
  auto reason = json::parse(history).as_array()[0].at("reason").as_string();
  EXPECT_EQ(std::string(reason), std::string(reason.size(), '"'));
}

}  // namespace
}  // namespace reconsume::detail::retry
