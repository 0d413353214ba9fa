// A message's properties as one flat block: every key and value in a single allocation, sorted by
// key (byte-wise, the order of std::map<std::string, std::string>), each key once.
//
// Why not the std::map the public API shows: a map costs an allocation per entry and per long key
// or value (most of ours are: "persistent://…", "ORIGIN_MESSAGE_ID", the retry history), and
// messages are built, copied and read on the hot path of every receive and every retry. The map
// is built only when the application asks for it (Message::properties()).
//
// Layout of the block (u32 in the host's byte order, read with memcpy; it never leaves the
// process): the keys and values one after the other, then 2n+1 offsets into them (entry i is key
// [o[2i], o[2i+1]) and value [o[2i+1], o[2i+2])), then n. An empty Properties holds no block at
// all.
//
// Thread safety: a plain value; const members may be called from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/decimal.hpp"

namespace reconsume::detail {

class Properties {
 public:
  struct Entry {
    std::string_view key;
    std::string_view value;
  };

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;

    Iterator() = default;
    Iterator(const Properties* owner, std::size_t index) : owner_(owner), index_(index) {}
    Entry operator*() const { return (*owner_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }

   private:
    const Properties* owner_ = nullptr;
    std::size_t index_ = 0;
  };

  Properties() = default;
  // In any order, as fromPairs: Properties{{"tenant", "acme"}, {"RECONSUMETIMES", "2"}}.
  Properties(std::initializer_list<Entry> pairs) : Properties(fromPairs(pairs)) {}

  static Properties fromMap(const std::map<std::string, std::string>& map);
  // Pairs in any order; a key given more than once keeps its last value (as the Java client reads
  // a message whose metadata repeats a key).
  static Properties fromPairs(std::span<const Entry> pairs);

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Entry `index` in key order; index < size().
  Entry operator[](std::size_t index) const {
    const char* offsets = block_.data() + block_.size() - 4 - 4 * (2 * count_ + 1) + 8 * index;
    std::uint32_t at[3];
    std::memcpy(at, offsets, sizeof at);
    const char* bytes = block_.data();
    return {std::string_view(bytes + at[0], at[1] - at[0]),
            std::string_view(bytes + at[1], at[2] - at[1])};
  }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

  std::optional<std::string_view> find(std::string_view key) const;
  // The value of `key`; throws std::out_of_range naming the key when there is none.
  std::string_view at(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key).has_value(); }
  // The sum of every key's and value's length: what counts against size limits.
  std::size_t contentBytes() const;
  // Where the block's bytes are (for a prefetch).
  const char* storage() const { return block_.data(); }

  std::map<std::string, std::string> toMap() const;

  friend bool operator==(const Properties& a, const Properties& b) { return a.block_ == b.block_; }
  // {"key": "value", ...}, for test failures and logs.
  friend std::ostream& operator<<(std::ostream& out, const Properties& properties);

 private:
  friend class PropertiesWriter;
  Properties(std::string block, std::size_t count)
      : block_(std::move(block)), count_(static_cast<std::uint32_t>(count)) {}

  std::string block_;
  std::uint32_t count_ = 0;  // also the block's last four bytes
};

// Writes a Properties: add() entries in ascending key order and the block is built in place, with
// no copy at the end. Entries out of order, or a key twice, are put right by finish() (at the
// cost of one more block: the last value of a repeated key wins) — unless the writer was told
// the keys come in order (`Keys::ascending`), which skips the check: then they must.
class PropertiesWriter {
 public:
  enum class Keys { anyOrder, ascending };

  // `bytes`: the keys' and values' total length expected (a hint: the block grows as needed).
  explicit PropertiesWriter(std::size_t bytes = 0, Keys keys = Keys::anyOrder);

  void add(std::string_view key, std::string_view value) {
    beginValue(key);
    append(value);
  }
  // For a value written in pieces: appends `key`; the value is what the appends below add until
  // the next add(), beginValue() or finish().
  void beginValue(std::string_view key) {
    if (checkOrder_ && count_ > 0) noteOrder(key);
    lastKeyBegin_ = used_;
    pushOffset(used_);
    append(key);
    pushOffset(used_);
    ++count_;
  }
  // `text` must not be in this writer's block (appendWritten copies from there).
  void append(std::string_view text) {
    if (text.empty()) return;
    std::memcpy(room(text.size()), text.data(), text.size());
    used_ += text.size();
  }
  void append(char c) {
    *room(1) = c;
    ++used_;
  }
  void appendNumber(std::int64_t value) {
    used_ = static_cast<std::size_t>(writeDecimal(room(kMaxDecimalChars), value) - block_.data());
  }
  // Appends `length` bytes of what was written from `begin` on (an earlier value, again).
  void appendWritten(std::size_t begin, std::size_t length) {
    char* at = room(length);  // first: the block may move
    std::memcpy(at, block_.data() + begin, length);
    used_ += length;
  }
  // The keys and values written so far.
  std::string_view written() const { return {block_.data(), used_}; }
  // For a value built by code that appends to a std::string (the retry history): `write` gets the
  // block, holding exactly what was written so far, and appends to it.
  template <typename Write>
  void appendWith(Write&& write) {
    block_.resize(used_);
    std::forward<Write>(write)(block_);
    used_ = block_.size();
    block_.resize(block_.capacity());
  }

  Properties finish() &&;

 private:
  // Where `bytes` more go, after what is written. The block's size is its whole room and used_
  // what is written: an append is a copy and a count, without std::string's checks and
  // terminator on each (a retry's properties are about thirty appends).
  char* room(std::size_t bytes) {
    if (bytes > block_.size() - used_) grow(bytes);
    return block_.data() + used_;
  }
  void grow(std::size_t bytes);
  void noteOrder(std::string_view key);
  void pushOffset(std::size_t offset) {
    if (offsets_ < kInlineOffsets) {
      inlineOffsets_[offsets_++] = static_cast<std::uint32_t>(offset);
    } else {
      spill(offset);
    }
  }
  void spill(std::size_t offset);
  std::uint32_t offsetAt(std::size_t index) const {
    return index < kInlineOffsets ? inlineOffsets_[index] : moreOffsets_[index - kInlineOffsets];
  }

  std::string block_;  // sized to its room; used_ bytes written
  std::size_t used_ = 0;
  // Entry i's key starts at offset 2i and its value at 2i+1; a value ends where the next key
  // starts, the last one at the end of the bytes. On the stack for up to 31 entries (ours and the
  // application's, as a rule), a vector beyond.
  static constexpr std::size_t kInlineOffsets = 63;
  std::uint32_t inlineOffsets_[kInlineOffsets];
  std::vector<std::uint32_t> moreOffsets_;
  std::size_t offsets_ = 0;
  std::size_t count_ = 0;
  std::size_t lastKeyBegin_ = 0;
  bool checkOrder_ = true;
  bool ordered_ = true;
};

}  // namespace reconsume::detail
