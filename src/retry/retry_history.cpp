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

void appendHistory(std::string& out, std::optional<std::string_view> previous,
                   const HistoryEntry& entry) {
  LastElements kept = previous ? lastArrayElements(*previous) : LastElements{};

  const std::size_t open = out.size();  // where the array starts in `out`
  out.reserve(open + (previous ? previous->size() : 0) + 96 + entry.reason.size());
  out += '[';
  // Where each kept element starts in `out`, to drop the oldest ones if it is too long.
  std::array<std::size_t, kHistoryMaxEntries> starts{};
  for (std::size_t i = 0; i < kept.size(); ++i) {
    starts[i] = out.size();
    out += kept[i];
    out += ',';
  }
  starts[kept.size()] = out.size();
  appendEntry(out, entry, kHistoryMaxBytes - 2);  // - the array's brackets
  out += ']';

  // Too long: drop the oldest entries, keeping at least the new one.
  std::size_t drop = 0;
  while (out.size() - open - (starts[drop] - open - 1) > kHistoryMaxBytes && drop < kept.size()) {
    ++drop;
  }
  if (drop > 0) out.erase(open + 1, starts[drop] - open - 1);
}

std::string appendHistory(const std::string* previous, const HistoryEntry& entry) {
  std::string history;
  appendHistory(history, previous ? std::optional<std::string_view>(*previous) : std::nullopt,
                entry);
  return history;
}

}  // namespace reconsume::detail::retry
