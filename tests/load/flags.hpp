// The command line of the load tools (reconsume_flood, reconsume_soak): `--flag value` pairs
// walked in order, each tool saying what its flags mean; the broker's URL defaults to
// RECONSUME_PULSAR_URL, as scripts/with-pulsar.sh exports it. Errors are std::invalid_argument
// naming the flag, which the tools report with exit status 2.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace reconsume::load {

class Flags {
 public:
  Flags(int argc, char** argv) : argc_(argc), argv_(argv) {}

  // Moves to the next flag; false at the end.
  bool next() {
    if (++index_ >= argc_) return false;
    flag_ = argv_[index_];
    return true;
  }
  const std::string& flag() const { return flag_; }
  // The current flag's value (the next argument).
  std::string value() {
    if (index_ + 1 >= argc_) throw std::invalid_argument(flag_ + " needs a value");
    return argv_[++index_];
  }
  [[noreturn]] void unknown() const {
    throw std::invalid_argument("unknown argument '" + flag_ + "'");
  }

  static std::string urlFromEnvironment() {
    const char* url = std::getenv("RECONSUME_PULSAR_URL");
    return url ? url : "";
  }

 private:
  int argc_;
  char** argv_;
  int index_ = 0;
  std::string flag_;
};

}  // namespace reconsume::load
