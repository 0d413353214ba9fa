// libFuzzer target: the admin API's JSON answers (admin/admin_json.hpp) — what an HTTP server,
// Pulsar's or one in the way, sends back for partitions, topic lists, stats and internal stats.
//
// Input: [mode byte][body]. Mode % 5 picks the reader: parsePartitions, parseTopicList,
// addSubscriptionBacklogs, addPartitionedSubscriptionBacklogs, parseCursor (subscription "sub";
// mode bit 3 picks partition 2 instead of -1).
//
// Besides "no crash, no sanitizer report", it aborts when
//   - a reader throws anything but Error(errc::protocol_error);
//   - a partition count is negative;
//   - a topic list is not the body's array of strings;
//   - backlogs are negative, or reading the same stats twice does not double them (the sums are
//     over several partitions' answers);
//   - a cursor's positions do not carry the partition asked for, or reading it again differs.
#include <boost/json/parse.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "admin/admin_json.hpp"
#include "fuzz_check.hpp"

using namespace reconsume::detail::admin;
using reconsume::errc;
using reconsume::fuzz::accepts;
using reconsume::fuzz::check;

namespace {

constexpr std::string_view kWhat = "GET /admin/v2/fuzz";

void partitions(std::string_view body) {
  int count = -1;
  if (accepts([&] { count = parsePartitions(body, kWhat); }, errc::protocol_error)) {
    check(count >= 0, "a negative partition count");
  }
}

void topics(std::string_view body) {
  std::vector<std::string> list;
  if (!accepts([&] { list = parseTopicList(body, kWhat); }, errc::protocol_error)) return;
  const boost::json::value value = boost::json::parse(body);
  const auto& array = value.as_array();
  check(list.size() == array.size(), "a topic list of another length");
  for (std::size_t i = 0; i < list.size(); ++i) {
    check(list[i] == array[i].as_string(), "a topic list with other names");
  }
}

template <typename Add>
void backlogs(std::string_view body, Add add) {
  std::map<std::string, std::int64_t> once, twice;
  if (!accepts([&] { add(body, kWhat, once); }, errc::protocol_error)) return;
  check(accepts([&] { add(body, kWhat, twice); }, errc::protocol_error) &&
            accepts([&] { add(body, kWhat, twice); }, errc::protocol_error),
        "stats read once are refused the second time");
  check(once.size() == twice.size(), "stats read twice name other subscriptions");
  for (const auto& [name, backlog] : once) {
    check(backlog >= 0, "a negative backlog");
    // Sums saturate at the largest backlog rather than overflow.
    const std::int64_t doubled = backlog > INT64_MAX / 2 ? INT64_MAX : 2 * backlog;
    check(twice[name] == doubled, "stats read twice do not add up");
  }
}

void cursor(std::string_view body, int partition) {
  reconsume::SubscriptionCursor cursor;
  bool found = false;
  if (!accepts([&] { found = parseCursor(body, kWhat, "sub", partition, cursor); },
               errc::protocol_error) ||
      !found) {
    return;
  }
  check(cursor.markDeletePosition.partition() == partition, "a cursor of another partition");
  for (const auto& range : cursor.acknowledgedRanges) {
    check(range.after.partition() == partition && range.upTo.partition() == partition,
          "a range of another partition");
  }
  reconsume::SubscriptionCursor again;
  check(parseCursor(body, kWhat, "sub", partition, again), "a cursor found once only");
  check(again.markDeletePosition == cursor.markDeletePosition &&
            again.acknowledgedRanges.size() == cursor.acknowledgedRanges.size(),
        "a cursor read twice differs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (mode % 5) {
    case 0:
      partitions(body);
      break;
    case 1:
      topics(body);
      break;
    case 2:
      backlogs(body, addSubscriptionBacklogs);
      break;
    case 3:
      backlogs(body, addPartitionedSubscriptionBacklogs);
      break;
    default:
      cursor(body, (mode & 8) ? 2 : -1);
      break;
  }
  return 0;
}
