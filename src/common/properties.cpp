#include "common/properties.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <vector>

namespace reconsume::detail {

namespace {

std::uint32_t readU32(const char* at) {
  std::uint32_t value = 0;
  std::memcpy(&value, at, 4);
  return value;
}

}  // namespace

// ----- Properties ---------------------------------------------------------------------------

std::optional<std::string_view> Properties::find(std::string_view key) const {
  std::size_t low = 0, high = size();
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    const Entry entry = (*this)[middle];
    const int order = entry.key.compare(key);
    if (order == 0) return entry.value;
    if (order < 0) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return std::nullopt;
}

std::string_view Properties::at(std::string_view key) const {
  if (auto value = find(key)) return *value;
  throw std::out_of_range("no property '" + std::string(key) + "'");
}

std::ostream& operator<<(std::ostream& out, const Properties& properties) {
  out << '{';
  const char* separator = "";
  for (const auto [key, value] : properties) {
    out << separator << '"' << key << "\": \"" << value << '"';
    separator = ", ";
  }
  return out << '}';
}

std::size_t Properties::contentBytes() const {
  if (count_ == 0) return 0;
  return readU32(block_.data() + block_.size() - 8);  // the last offset: where the bytes end
}

std::map<std::string, std::string> Properties::toMap() const {
  std::map<std::string, std::string> map;
  for (const auto [key, value] : *this) map.emplace_hint(map.end(), key, value);
  return map;
}

Properties Properties::fromMap(const std::map<std::string, std::string>& map) {
  if (map.empty()) return Properties();
  std::size_t bytes = 0;
  for (const auto& [key, value] : map) bytes += key.size() + value.size();
  // A std::map's keys are unique and in std::string's order, which is the block's byte order.
  PropertiesWriter writer(bytes, PropertiesWriter::Keys::ascending);
  for (const auto& [key, value] : map) writer.add(key, value);
  return std::move(writer).finish();
}

Properties Properties::fromPairs(std::span<const Entry> pairs) {
  if (pairs.empty()) return Properties();
  std::size_t bytes = 0;
  bool ascending = true;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    bytes += pairs[i].key.size() + pairs[i].value.size();
    if (i > 0 && !(pairs[i - 1].key < pairs[i].key)) ascending = false;
  }
  if (ascending) {  // as this library and most producers write them: no sorting
    PropertiesWriter writer(bytes);
    for (const auto& entry : pairs) writer.add(entry.key, entry.value);
    return std::move(writer).finish();
  }
  // Sorted by key, stable, so that among equal keys the last one given comes last and is kept.
  std::vector<Entry> sorted(pairs.begin(), pairs.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Entry& a, const Entry& b) { return a.key < b.key; });
  PropertiesWriter writer(bytes);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i + 1 < sorted.size() && sorted[i + 1].key == sorted[i].key) continue;
    writer.add(sorted[i].key, sorted[i].value);
  }
  return std::move(writer).finish();
}

// ----- PropertiesWriter ---------------------------------------------------------------------

PropertiesWriter::PropertiesWriter(std::size_t bytes, Keys keys)
    // The offsets and the count go at the end of the same block: room for about a dozen entries.
    // Sized as it is made: resize() of an empty string takes std::string's general path for
    // replacing characters (half of the constructor's instructions, callgrind).
    : block_(bytes + 128, '\0'), checkOrder_(keys == Keys::anyOrder) {}

void PropertiesWriter::grow(std::size_t bytes) {
  block_.resize(std::max(2 * block_.size(), used_ + bytes));
  block_.resize(block_.capacity());
}

void PropertiesWriter::noteOrder(std::string_view key) {
  // The previous key ends where its value starts.
  const std::size_t lastKeyEnd = offsetAt(offsets_ - 1);
  const std::string_view last(block_.data() + lastKeyBegin_, lastKeyEnd - lastKeyBegin_);
  if (!(last < key)) ordered_ = false;
}

void PropertiesWriter::spill(std::size_t offset) {
  moreOffsets_.push_back(static_cast<std::uint32_t>(offset));
  ++offsets_;
}

Properties PropertiesWriter::finish() && {
  if (count_ == 0) return Properties();
  pushOffset(used_);  // where the last value ends
  if (!ordered_) {
    // Put right through fromPairs, from views into this writer's block.
    std::vector<Properties::Entry> entries;
    entries.reserve(count_);
    const char* bytes = block_.data();
    for (std::size_t i = 0; i < count_; ++i) {
      const std::uint32_t keyBegin = offsetAt(2 * i);
      const std::uint32_t valueBegin = offsetAt(2 * i + 1);
      const std::uint32_t valueEnd = offsetAt(2 * i + 2);
      entries.push_back({std::string_view(bytes + keyBegin, valueBegin - keyBegin),
                         std::string_view(bytes + valueBegin, valueEnd - valueBegin)});
    }
    return Properties::fromPairs(entries);
  }
  const std::size_t inlineCount = std::min(offsets_, kInlineOffsets);
  char* at = room(4 * (offsets_ + 1));
  std::memcpy(at, inlineOffsets_, 4 * inlineCount);
  at += 4 * inlineCount;
  if (!moreOffsets_.empty()) {
    std::memcpy(at, moreOffsets_.data(), 4 * moreOffsets_.size());
    at += 4 * moreOffsets_.size();
  }
  const auto count = static_cast<std::uint32_t>(count_);
  std::memcpy(at, &count, 4);
  block_.resize(used_ + 4 * (offsets_ + 1));
  return Properties(std::move(block_), count_);
}

}  // namespace reconsume::detail
