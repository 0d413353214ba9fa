#include "integration/go_interop.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "integration/pulsar_environment.hpp"

namespace reconsume::integration {
namespace {

std::string binaryPath() {
  const char* configured = std::getenv("RECONSUME_INTEROP_GO_BIN");
  std::string path =
      configured != nullptr && *configured != '\0' ? configured : RECONSUME_INTEROP_GO_BIN_DEFAULT;
  if (::access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error("the Go interop binary '" + path +
                             "' does not exist or cannot be run: build it with `cmake --build "
                             "<build> --target reconsume_interop_go` (needs go; "
                             "tests/interop-go/README.md)");
  }
  return path;
}

}  // namespace

GoRun runGo(std::string_view command, const std::vector<std::string>& args) {
  std::vector<std::string> words = {binaryPath(), std::string(command), "--url",
                                    pulsar().serviceUrl};
  if (pulsar().secureDir) {
    words.insert(words.end(), {"--ca", pulsar().secureFile("ca.pem"), "--token-file",
                               pulsar().secureFile("token.txt")});
  }
  words.insert(words.end(), args.begin(), args.end());
  return runJsonLines(std::move(words));
}

}  // namespace reconsume::integration
