// libFuzzer target: RECONSUME_HISTORY, the per-hop history property a message brings with it
// (anyone can publish to a retry topic). Its two readers: lastArrayElements (history_elements.hpp:
// the compact scanner, else Boost.JSON and the element splitter) with appendHistory on the way to
// the next hop, and parseHistory (dead_letter_record.hpp) when a dead letter is decoded.
//
// Input: [mode byte][previous history]. Mode bit 0: the new hop's reason is the input too (text
// the application got from somewhere); bit 1: the hop has a category.
//
// Besides "no crash, no sanitizer report", it aborts when
//   - lastArrayElements keeps elements of something that is not a JSON array, or for an array
//     does not keep exactly its last kHistoryMaxEntries - 1 elements, each a JSON text equal to
//     that element (numbers within rounding);
//   - parseHistory reads entries from something that is not an array of objects, or not one per
//     element from one that is;
//   - appendHistory's result is not a JSON array of at most kHistoryMaxEntries elements and
//     kHistoryMaxBytes bytes, whose last element is the new hop (as parseHistory reads it) and
//     whose others are the newest previous elements, byte for byte; or parseHistory does not
//     read it back (all entries, or none when a kept element is not an object).
#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "dlq/dead_letter_record.hpp"
#include "fuzz_check.hpp"
#include "retry/history_elements.hpp"
#include "retry/retry_history.hpp"

using namespace reconsume::detail;
using reconsume::fuzz::check;

namespace {

// Equal JSON values, numbers within rounding: Boost.JSON 1.81 may round the same number text
// differently in the last digit depending on where it sits in the input, and reads some as NaN
// ("0e999999": 0 x inf), which never equals itself.
bool sameValue(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.to_number<double>(), y = b.to_number<double>();
    return x == y || (std::isnan(x) && std::isnan(y)) ||
           std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &p = a.as_array(), &q = b.as_array();
    if (p.size() != q.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!sameValue(p[i], q[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const auto &p = a.as_object(), &q = b.as_object();
    if (p.size() != q.size()) return false;
    for (const auto& [key, value] : p) {
      const auto* other = q.if_contains(key);
      if (!other || !sameValue(value, *other)) return false;
    }
    return true;
  }
  return a == b;
}

bool sameJson(std::string_view text, const boost::json::value& expected) {
  boost::system::error_code ec;
  const auto value = boost::json::parse(text, ec);
  return !ec && sameValue(value, expected);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string previous(reinterpret_cast<const char*>(data + 1), size - 1);

  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(previous, ec);
  const boost::json::array* array = !ec && parsed.is_array() ? &parsed.as_array() : nullptr;

  // The reader on the way to the next hop.
  const retry::LastElements kept = retry::lastArrayElements(previous);
  if (!array) {
    check(kept.size() == 0, "elements kept from something that is not a JSON array");
  } else {
    const std::size_t expected = std::min(array->size(), retry::kHistoryMaxEntries - 1);
    check(kept.size() == expected, "not the last elements of an array kept");
    for (std::size_t i = 0; i < kept.size(); ++i) {
      check(sameJson(kept[i], (*array)[array->size() - kept.size() + i]),
            "a kept element is not the array's element");
    }
  }

  // The reader of dead letters.
  const auto hops = dlq::parseHistory(previous);
  bool allObjects = array != nullptr;
  if (array) {
    for (const auto& element : *array) allObjects = allObjects && element.is_object();
  }
  check(hops.size() == (allObjects ? array->size() : 0), "parseHistory read another count");

  // The next hop.
  retry::HistoryEntry entry;
  entry.count = static_cast<int>(size);
  entry.at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'000));
  entry.delay = std::chrono::milliseconds(30'000);
  entry.reason = (mode & 1) ? std::string_view(previous) : "timeout";
  entry.category = (mode & 2) ? "downstream" : "";
  const std::string next = retry::appendHistory(&previous, entry);

  check(next.size() <= retry::kHistoryMaxBytes, "a history above kHistoryMaxBytes");
  const boost::json::value written = boost::json::parse(next, ec);
  check(!ec && written.is_array(), "appendHistory wrote no JSON array");
  const auto& elements = written.as_array();
  check(!elements.empty() && elements.size() <= retry::kHistoryMaxEntries,
        "a history with too many entries");
  check(elements.size() - 1 <= kept.size(), "appendHistory kept more than it read");

  // Elements of someone else's that are no objects are kept too, and parseHistory reads nothing
  // from an array with one of them (its documented rule); the new hop is read on its own.
  bool nextAllObjects = true;
  for (const auto& element : elements) nextAllObjects = nextAllObjects && element.is_object();
  check(dlq::parseHistory(next).size() == (nextAllObjects ? elements.size() : 0),
        "parseHistory misreads appendHistory's result");
  const auto newHops = dlq::parseHistory("[" + boost::json::serialize(elements.back()) + "]");
  check(newHops.size() == 1, "the new hop is no object");
  const auto& hop = newHops.back();
  check(hop.count == entry.count && hop.at == entry.at && hop.delay == entry.delay &&
            hop.category == entry.category,
        "the last entry is not the new hop");
  if (!(mode & 1)) check(hop.reason == entry.reason, "the new hop's reason changed");

  // The previous elements that are left, byte for byte.
  const retry::LastElements again = retry::lastArrayElements(next);
  check(again.size() == std::min(elements.size(), retry::kHistoryMaxEntries - 1),
        "appendHistory's own history is not read back");
  for (std::size_t i = 0; i + 1 < again.size(); ++i) {
    check(again[i] == kept[kept.size() - (again.size() - 1) + i],
          "a kept entry changed on the way");
  }
  return 0;
}
