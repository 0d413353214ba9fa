// Immutable bytes shared by reference: a view and what keeps it alive. A message's payload is one:
// the messages of a received batch entry are views into the entry's one buffer, and a retry copy
// shares the payload of the message it copies, where each would otherwise copy it.
//
// Thread safety: a plain value (the bytes are never written after they are shared).
#pragma once

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace reconsume::detail {

class Bytes {
 public:
  Bytes() = default;
  // A view into what `owner` keeps alive.
  Bytes(std::shared_ptr<const void> owner, std::string_view view)
      : owner_(std::move(owner)), view_(view) {}

  // Takes the string over: no copy of its bytes.
  static Bytes adopt(std::string&& text) {
    if (text.empty()) return Bytes();
    auto owner = std::make_shared<const std::string>(std::move(text));
    std::string_view view(*owner);
    return Bytes(std::move(owner), view);
  }
  // Shares a string its owner keeps unchanged: no copy of its bytes.
  static Bytes share(std::shared_ptr<const std::string> text) {
    if (!text || text->empty()) return Bytes();
    std::string_view view(*text);
    return Bytes(std::move(text), view);
  }
  // One allocation for the owner and the bytes.
  static Bytes copy(std::string_view text) {
    if (text.empty()) return Bytes();
    auto owner = std::make_shared_for_overwrite<char[]>(text.size());
    std::memcpy(owner.get(), text.data(), text.size());
    std::string_view view(owner.get(), text.size());
    return Bytes(std::move(owner), view);
  }

  std::string_view view() const { return view_; }
  const char* data() const { return view_.data(); }
  std::size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  // Bytes [offset, offset + count) of these, sharing their owner.
  Bytes slice(std::size_t offset, std::size_t count) const {
    return Bytes(owner_, view_.substr(offset, count));
  }
  std::string toString() const { return std::string(view_); }

  // Compared and printed as their text.
  friend bool operator==(const Bytes& a, std::string_view b) { return a.view_ == b; }
  friend std::ostream& operator<<(std::ostream& out, const Bytes& bytes) {
    return out << bytes.view_;
  }

 private:
  std::shared_ptr<const void> owner_;
  std::string_view view_;
};

}  // namespace reconsume::detail
