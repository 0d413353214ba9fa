// A small terminal chart of one series sampled over time (the soak run's memory and descriptors):
// columns are buckets of samples (the largest value of each), rows are value bands from the
// series' maximum down to its minimum, and a last row marks the buckets in which the broker was
// restarted with '^'. Plain ASCII, at most `width` columns of data.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace reconsume::load {

inline std::string chart(const std::string& title, const std::vector<double>& values,
                         const std::vector<bool>& marked, int height = 6, int width = 60) {
  if (values.empty()) return title + ": no samples\n";
  int columns = std::min<int>(width, static_cast<int>(values.size()));
  std::vector<double> bucket(static_cast<std::size_t>(columns), 0);
  std::vector<bool> mark(static_cast<std::size_t>(columns), false);
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto c = i * static_cast<std::size_t>(columns) / values.size();
    bucket[c] = std::max(bucket[c], values[i]);
    if (i < marked.size() && marked[i]) mark[c] = true;
  }
  double top = *std::max_element(bucket.begin(), bucket.end());
  double bottom = *std::min_element(bucket.begin(), bucket.end());
  if (top - bottom < 1e-9) bottom = top - 1;  // a flat line sits on the top row
  std::string out = title + "\n";
  char label[32];
  for (int row = 0; row < height; ++row) {
    // Row r covers values above its lower edge; the bottom row takes everything left.
    double edge = top - (top - bottom) * (row + 1) / height;
    std::snprintf(label, sizeof label, "%9.1f |", top - (top - bottom) * row / height);
    out += label;
    for (int c = 0; c < columns; ++c) out += bucket[c] > edge || row == height - 1 ? '#' : ' ';
    out += '\n';
  }
  out += "          +";
  for (int c = 0; c < columns; ++c) out += mark[c] ? '^' : '-';
  out += "\n";
  return out;
}

}  // namespace reconsume::load
