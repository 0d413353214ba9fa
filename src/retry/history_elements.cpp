#include "retry/history_elements.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <cstdint>
#include <cstring>

#include "common/text.hpp"
#include "common/utf8.hpp"

namespace reconsume::detail::retry {
namespace {

// A Boost.JSON SAX handler that builds nothing: it only records whether the document is an
// array. Validation without allocating a DOM keeps the append cheap.
struct ArrayCheck {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  bool sawRoot = false;
  bool rootIsArray = false;

  bool root(bool isArray) {
    if (!sawRoot) rootIsArray = isArray;
    sawRoot = true;
    return true;
  }
  using ec = boost::system::error_code;
  using sv = boost::json::string_view;
  bool on_document_begin(ec&) { return true; }
  bool on_document_end(ec&) { return true; }
  bool on_array_begin(ec&) { return root(true); }
  bool on_array_end(std::size_t, ec&) { return true; }
  bool on_object_begin(ec&) { return root(false); }
  bool on_object_end(std::size_t, ec&) { return true; }
  bool on_string_part(sv, std::size_t, ec&) { return true; }
  bool on_string(sv, std::size_t, ec&) { return root(false); }
  bool on_key_part(sv, std::size_t, ec&) { return true; }
  bool on_key(sv, std::size_t, ec&) { return true; }
  bool on_number_part(sv, ec&) { return true; }
  bool on_int64(std::int64_t, sv, ec&) { return root(false); }
  bool on_uint64(std::uint64_t, sv, ec&) { return root(false); }
  bool on_double(double, sv, ec&) { return root(false); }
  bool on_bool(bool, ec&) { return root(false); }
  bool on_null(ec&) { return root(false); }
  bool on_comment_part(sv, ec&) { return true; }
  bool on_comment(sv, ec&) { return true; }
};

bool isJsonArray(std::string_view text) {
  boost::json::basic_parser<ArrayCheck> parser{boost::json::parse_options{}};
  boost::system::error_code error;
  std::size_t used = parser.write_some(false, text.data(), text.size(), error);
  return !error && used == text.size() && parser.handler().rootIsArray;
}

// The end of the JSON string whose opening quote is at `open` (the index of its closing quote).
// The text is known to be valid JSON, so a quote preceded by an even number of backslashes ends
// the string; memchr finds the candidates quickly.
std::size_t stringEnd(std::string_view text, std::size_t open) {
  std::size_t at = open + 1;
  while (true) {
    const void* found = std::memchr(text.data() + at, '"', text.size() - at);
    std::size_t quote = static_cast<const char*>(found) - text.data();
    std::size_t backslashes = 0;
    while (text[quote - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote;
    at = quote + 1;
  }
}

// The elements of a JSON array already known to be valid, as they are written.
LastElements arrayElements(std::string_view array) {
  LastElements elements;
  std::size_t start = array.find('[') + 1;
  int depth = 0;
  for (std::size_t i = start; i < array.size(); ++i) {
    switch (array[i]) {
      case '"':
        i = stringEnd(array, i);
        break;
      case '[':
      case '{':
        ++depth;
        break;
      case '}':
        --depth;
        break;
      case ']':
        if (depth > 0) {
          --depth;
          break;
        }
        [[fallthrough]];
      case ',':
        if (depth == 0) {
          auto element = trimWhitespace(array.substr(start, i - start));
          if (!element.empty()) elements.add(element);
          start = i + 1;
          if (array[i] == ']') return elements;
        }
        break;
      default:
        break;
    }
  }
  return elements;
}

// Recognises exactly the compact form appendHistory writes,
//   [{"n":<int>,"at":<int>,"delay":<int>,"reason":"<string>"[,"category":"<string>"]},...]
// validating it as strictly as a JSON parser would (numbers, escapes, UTF-8, no raw control
// characters), and collects its elements in one pass. Anything else — other spacing, other keys,
// a \u escape of a surrogate — is left to Boost.JSON (false). This fast path is what keeps a
// republish well under a microsecond; every text it accepts is valid JSON.
class CompactHistoryScanner {
  // Bytes that stand for themselves inside a JSON string: printable ASCII but '"' and '\\'.
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
    return plain;
  }();

 public:
  explicit CompactHistoryScanner(std::string_view text) : text_(text) {}

  bool scan(LastElements& elements) {
    if (!literal("[")) return false;
    if (literal("]")) return at_ == text_.size();
    while (true) {
      std::size_t start = at_;
      if (!(literal("{\"n\":") && integer() && literal(",\"at\":") && integer() &&
            literal(",\"delay\":") && integer() && literal(",\"reason\":") && string() &&
            (!literal(",\"category\":") || string()) && literal("}"))) {
        return false;
      }
      elements.add(text_.substr(start, at_ - start));
      if (literal("]")) return at_ == text_.size();
      if (!literal(",")) return false;
    }
  }

 private:
  // The literals have a size known at compile time, so the comparison compiles to a few loads.
  template <std::size_t N>
  bool literal(const char (&expected)[N]) {
    constexpr std::size_t size = N - 1;
    if (text_.size() - at_ < size || std::memcmp(text_.data() + at_, expected, size) != 0) {
      return false;
    }
    at_ += size;
    return true;
  }
  // Skips printable ASCII other than '"' and '\\' eight bytes at a time (the bulk of a reason).
  void skipPlainWords() {
    constexpr std::uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
    auto hasZeroByte = [](std::uint64_t v) { return ((v - ones) & ~v & highs) != 0; };
    while (text_.size() - at_ >= 8) {
      std::uint64_t word;
      std::memcpy(&word, text_.data() + at_, 8);
      bool special = (word & highs) != 0 ||                          // non-ASCII
                     ((word - ones * 0x20) & ~word & highs) != 0 ||  // a control character
                     hasZeroByte(word ^ (ones * '"')) || hasZeroByte(word ^ (ones * '\\'));
      if (special) return;
      at_ += 8;
    }
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  static bool isHex(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
  // -?(0|[1-9][0-9]*), as JSON has it.
  bool integer() {
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    if (at_ >= text_.size() || !isDigit(text_[at_])) return false;
    if (text_[at_++] == '0') return true;
    while (at_ < text_.size() && isDigit(text_[at_])) ++at_;
    return true;
  }
  bool string() {
    if (!literal("\"")) return false;
    while (at_ < text_.size()) {
      skipPlainWords();
      if (at_ == text_.size()) break;
      auto c = static_cast<unsigned char>(text_[at_]);
      if (kPlain[c]) {
        ++at_;  // the common case first
        continue;
      }
      if (c == '"') {
        ++at_;
        return true;
      }
      if (c == '\\') {
        if (!escape()) return false;
      } else if (c < 0x20) {
        return false;
      } else if (c < 0x80) {
        ++at_;
      } else {
        std::size_t length = utf8SequenceLength(text_.substr(at_));
        if (length == 0) return false;
        at_ += length;
      }
    }
    return false;
  }
  bool escape() {
    if (at_ + 1 >= text_.size()) return false;
    switch (text_[at_ + 1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        at_ += 2;
        return true;
      case 'u': {
        if (at_ + 6 > text_.size()) return false;
        for (std::size_t i = at_ + 2; i < at_ + 6; ++i) {
          if (!isHex(text_[i])) return false;
        }
        // Surrogate escapes must come in valid pairs; Boost.JSON judges those.
        char first = static_cast<char>(text_[at_ + 2] | 0x20);
        char second = static_cast<char>(text_[at_ + 3] | 0x20);
        if (first == 'd' && second >= '8') return false;
        at_ += 6;
        return true;
      }
      default:
        return false;
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

LastElements lastArrayElements(std::string_view text) {
  LastElements elements;
  if (CompactHistoryScanner(text).scan(elements)) return elements;
  if (isJsonArray(text)) return arrayElements(text);
  return {};
}

}  // namespace reconsume::detail::retry
