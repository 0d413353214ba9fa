// The process's resident memory, from /proc/self/status: now (VmRSS) and the peak since the
// process started (VmHWM). The load run compares the peak with its bound.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace reconsume::load {

struct ProcessMemory {
  std::uint64_t residentKiB = 0;  // VmRSS
  std::uint64_t peakKiB = 0;      // VmHWM

  static ProcessMemory read() {
    ProcessMemory memory;
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      std::istringstream fields(line);
      std::string key;
      std::uint64_t kib = 0;
      fields >> key >> kib;
      if (key == "VmRSS:") memory.residentKiB = kib;
      if (key == "VmHWM:") memory.peakKiB = kib;
    }
    return memory;
  }
};

inline double mebibytes(std::uint64_t kib) {
  return static_cast<double>(kib) / 1024.0;
}

}  // namespace reconsume::load
