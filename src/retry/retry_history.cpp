#include "retry/retry_history.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "common/utf8.hpp"
#include "retry/history_elements.hpp"

namespace reconsume::detail::retry {
namespace {

void appendNumber(std::string& out, std::int64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

void appendEntry(std::string& out, const HistoryEntry& entry, std::size_t maxBytes) {
  auto at = std::chrono::duration_cast<std::chrono::milliseconds>(entry.at.time_since_epoch());
  std::size_t begin = out.size();
  out += "{\"n\":";
  appendNumber(out, entry.count);
  out += ",\"at\":";
  appendNumber(out, at.count());
  out += ",\"delay\":";
  appendNumber(out, entry.delay.count());
  std::string category;
  if (!entry.category.empty()) {
    category = ",\"category\":";
    appendJsonString(category, entry.category, maxBytes);
  }
  out += ",\"reason\":";
  std::size_t used = out.size() - begin + category.size() + 1;  // + the closing brace
  appendJsonString(out, entry.reason, maxBytes > used ? maxBytes - used : 0);
  out += category;
  out += '}';
}

}  // namespace

std::string appendHistory(const std::string* previous, const HistoryEntry& entry) {
  LastElements kept = previous ? lastArrayElements(*previous) : LastElements{};

  std::string history;
  history.reserve((previous ? previous->size() : 0) + 96 + entry.reason.size());
  history += '[';
  // Where each kept element starts in `history`, to drop the oldest ones if it is too long.
  std::array<std::size_t, kHistoryMaxEntries> starts{};
  for (std::size_t i = 0; i < kept.size(); ++i) {
    starts[i] = history.size();
    history += kept[i];
    history += ',';
  }
  starts[kept.size()] = history.size();
  appendEntry(history, entry, kHistoryMaxBytes - 2);  // - the array's brackets
  history += ']';

  // Too long: drop the oldest entries, keeping at least the new one.
  std::size_t drop = 0;
  while (history.size() - (starts[drop] - 1) > kHistoryMaxBytes && drop < kept.size()) ++drop;
  if (drop > 0) history.erase(1, starts[drop] - 1);
  return history;
}

}  // namespace reconsume::detail::retry
