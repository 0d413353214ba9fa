#include "terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace reconsume::tools {

bool stdoutIsTerminal() {
  static const bool terminal = ::isatty(STDOUT_FILENO) != 0;
  return terminal;
}

int outputWidth() {
  winsize size{};
  if (stdoutIsTerminal() && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::clamp(static_cast<int>(size.ws_col), 40, 200);
  }
  return 80;
}

namespace {
std::string paint(std::string_view code, std::string_view text) {
  if (!stdoutIsTerminal()) return std::string(text);
  return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
}
}  // namespace

std::string bold(std::string_view text) {
  return paint("1", text);
}
std::string green(std::string_view text) {
  return paint("32", text);
}
std::string yellow(std::string_view text) {
  return paint("33", text);
}
std::string red(std::string_view text) {
  return paint("31", text);
}
std::string dim(std::string_view text) {
  return paint("2", text);
}

ProgressLine::ProgressLine(std::chrono::milliseconds plainEvery)
    : terminal_(stdoutIsTerminal()), plainEvery_(plainEvery) {}

void ProgressLine::update(const std::string& text) {
  if (terminal_) {
    std::printf("\r%s\x1b[K", text.c_str());
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
