// Output for people: whether a stream is a terminal (colour and live redraws only then, and
// colour never with NO_COLOR set, https://no-color.org), a one-line progress display, and human
// units for durations and sizes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace reconsume::tools {

enum class Stream { out, err };

bool stdoutIsTerminal();
// Colour for `stream`: it is a terminal and NO_COLOR is unset or empty.
bool colourOn(Stream stream);
// The width output for people is laid out to: the terminal's columns (40 to 200) when stdout is
// a terminal that says, 80 otherwise.
int outputWidth();

// ANSI colour when colourOn(stream), the plain text otherwise.
std::string bold(std::string_view text, Stream stream = Stream::out);
std::string green(std::string_view text, Stream stream = Stream::out);
std::string yellow(std::string_view text, Stream stream = Stream::out);
std::string red(std::string_view text, Stream stream = Stream::out);
std::string dim(std::string_view text, Stream stream = Stream::out);

// `text` cut to `columns` visible characters (ANSI colour sequences take none; the colour is
// reset after a cut).
std::string cutToColumns(std::string_view text, int columns);

// One line redrawn in place on a terminal, cut to the terminal's width at each redraw (a line
// that wrapped would leave its first rows behind); elsewhere, a line every `plainEvery` at most.
class ProgressLine {
 public:
  explicit ProgressLine(std::chrono::milliseconds plainEvery = std::chrono::seconds(1));
  void update(const std::string& text);
  // Leaves the last text on screen and moves to a fresh line.
  void finish();

 private:
  bool terminal_;
  std::chrono::milliseconds plainEvery_;
  std::chrono::steady_clock::time_point lastPlain_{};
  bool drawn_ = false;
};

std::string humanDuration(std::chrono::milliseconds d);  // "850ms", "2.5s", "3m 20s", "2h 5m", "4d"
std::string humanBytes(std::uint64_t bytes);             // "512 B", "1.5 KiB", "3.2 MiB"
// A bar of `width` cells for value/max, drawn with block characters.
std::string bar(double value, double max, int width);

}  // namespace reconsume::tools
