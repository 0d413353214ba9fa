#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace reconsume::tools {

bool stdoutIsTerminal() {
  static const bool terminal = ::isatty(STDOUT_FILENO) != 0;
  return terminal;
}

bool colourOn(Stream stream) {
  static const bool noColour = [] {
    const char* value = std::getenv("NO_COLOR");
    return value != nullptr && value[0] != '\0';
  }();
  static const bool errIsTerminal = ::isatty(STDERR_FILENO) != 0;
  if (noColour) return false;
  return stream == Stream::out ? stdoutIsTerminal() : errIsTerminal;
}

namespace {

// The terminal's columns, 0 when stdout is not a terminal or does not say.
int terminalColumns() {
  winsize size{};
  if (stdoutIsTerminal() && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) return size.ws_col;
  return 0;
}

std::string paint(std::string_view code, std::string_view text, Stream stream) {
  if (!colourOn(stream)) return std::string(text);
  return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
}

}  // namespace

int outputWidth() {
  int columns = terminalColumns();
  return columns > 0 ? std::clamp(columns, 40, 200) : 80;
}

std::string bold(std::string_view text, Stream stream) {
  return paint("1", text, stream);
}
std::string green(std::string_view text, Stream stream) {
  return paint("32", text, stream);
}
std::string yellow(std::string_view text, Stream stream) {
  return paint("33", text, stream);
}
std::string red(std::string_view text, Stream stream) {
  return paint("31", text, stream);
}
std::string dim(std::string_view text, Stream stream) {
  return paint("2", text, stream);
}

std::string cutToColumns(std::string_view text, int columns) {
  std::string out;
  int used = 0;
  bool coloured = false;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      auto end = text.find('m', i);
      if (end == std::string_view::npos) end = text.size() - 1;
      out.append(text.substr(i, end + 1 - i));
      coloured = true;
      i = end + 1;
      continue;
    }
    // A UTF-8 sequence is one character: its first byte and the continuation bytes after it.
    std::size_t next = i + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (used == columns) {
      if (coloured) out += "\x1b[0m";
      return out;
    }
    out.append(text.substr(i, next - i));
    ++used;
    i = next;
  }
  return out;
}

ProgressLine::ProgressLine(std::chrono::milliseconds plainEvery)
    : terminal_(stdoutIsTerminal()), plainEvery_(plainEvery) {}

void ProgressLine::update(const std::string& text) {
  if (terminal_) {
    // The last column stays free: writing into it moves some terminals to the next row.
    int columns = terminalColumns();
    std::string shown = columns > 1 ? cutToColumns(text, columns - 1) : text;
    std::printf("\r%s\x1b[K", shown.c_str());
    std::fflush(stdout);
    drawn_ = true;
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (now - lastPlain_ < plainEvery_) return;
  lastPlain_ = now;
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void ProgressLine::finish() {
  if (terminal_ && drawn_) std::printf("\n");
  drawn_ = false;
  std::fflush(stdout);
}

std::string humanDuration(std::chrono::milliseconds d) {
  auto ms = d.count();
  char text[64];
  if (ms < 1000) {
    std::snprintf(text, sizeof text, "%lldms", static_cast<long long>(ms));
  } else if (ms < 60'000) {
    std::snprintf(text, sizeof text, "%.1fs", ms / 1000.0);
  } else if (ms < 3'600'000) {
    std::snprintf(text, sizeof text, "%lldm %llds", static_cast<long long>(ms / 60'000),
                  static_cast<long long>(ms % 60'000 / 1000));
  } else if (ms < 86'400'000) {
    std::snprintf(text, sizeof text, "%lldh %lldm", static_cast<long long>(ms / 3'600'000),
                  static_cast<long long>(ms % 3'600'000 / 60'000));
  } else {
    std::snprintf(text, sizeof text, "%lldd %lldh", static_cast<long long>(ms / 86'400'000),
                  static_cast<long long>(ms % 86'400'000 / 3'600'000));
  }
  return text;
}

std::string humanBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

std::string bar(double value, double max, int width) {
  static constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  if (max <= 0 || value <= 0) return "";
  double cells = std::min(1.0, value / max) * width;
  int full = static_cast<int>(cells);
  int eighths = static_cast<int>(std::round((cells - full) * 8));
  if (eighths == 8) {
    ++full;
    eighths = 0;
  }
  std::string out;
  for (int i = 0; i < full; ++i) out += "█";
  out += kEighths[eighths];
  if (out.empty()) out = "▏";  // a non-zero value always shows
  return out;
}

}  // namespace reconsume::tools
