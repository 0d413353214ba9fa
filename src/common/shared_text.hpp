// Text many values share, held once: the topic and producer name every message of a topic or an
// entry carries (a "persistent://…" name is too long to be stored inside a std::string, so a copy
// per message would be an allocation per message).
//
// Thread safety: a plain value (the text is never changed once shared).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace reconsume::detail {

class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT: implicit, a name is text
      : value_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}
  SharedText(const char* text) : SharedText(std::string(text)) {}  // NOLINT

  const std::string& str() const { return value_ ? *value_ : none(); }
  bool empty() const { return !value_; }

  // Compared and printed as their text.
  friend bool operator==(const SharedText& a, const SharedText& b) { return a.str() == b.str(); }
  friend std::ostream& operator<<(std::ostream& out, const SharedText& text) {
    return out << text.str();
  }

 private:
  static const std::string& none() {
    static const std::string text;
    return text;
  }

  std::shared_ptr<const std::string> value_;
};

}  // namespace reconsume::detail
