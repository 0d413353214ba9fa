#include "retry/retry_history.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/decimal.hpp"
#include "common/utf8.hpp"
#include "retry/history_elements.hpp"

namespace reconsume::detail::retry {
namespace {

// Appends `literal` then `value` to the text at `at` (a buffer with room for both).
template <std::size_t N>
char* writeField(char* at, const char (&literal)[N], std::int64_t value) {
  std::memcpy(at, literal, N - 1);
  at += N - 1;
  return writeDecimal(at, value);
}

void appendEntry(std::string& out, const HistoryEntry& entry, std::size_t maxBytes) {
  auto at = std::chrono::duration_cast<std::chrono::milliseconds>(entry.at.time_since_epoch());
  std::size_t begin = out.size();
  // The numbers, their names and the reason's name in one piece: an entry is appended on every
  // retry.
  char head[96];
  char* end = writeField(head, "{\"n\":", entry.count);
  end = writeField(end, ",\"at\":", at.count());
  end = writeField(end, ",\"delay\":", entry.delay.count());
  constexpr std::string_view kReason = ",\"reason\":";
  end = std::copy(kReason.begin(), kReason.end(), end);
  out.append(head, end);
  std::string category;
  if (!entry.category.empty()) {
    category = ",\"category\":";
    appendJsonString(category, entry.category, maxBytes);
  }
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
