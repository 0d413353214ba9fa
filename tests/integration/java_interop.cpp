#include "integration/java_interop.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <stdexcept>

#include "integration/pulsar_environment.hpp"

namespace reconsume::integration {
namespace {

std::string jarPath() {
  const char* configured = std::getenv("RECONSUME_INTEROP_JAR");
  std::string path =
      configured != nullptr && *configured != '\0' ? configured : RECONSUME_INTEROP_JAR_DEFAULT;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw std::runtime_error("the Java interop jar '" + path +
                             "' does not exist: build it with tests/interop/build.sh");
  }
  return path;
}

}  // namespace

JavaRun runJava(std::string_view command, const std::vector<std::string>& args) {
  // C1 only and the serial collector: each run lasts seconds, so starting fast is what counts.
  std::vector<std::string> words = {"java",
                                    "-XX:TieredStopAtLevel=1",
                                    "-XX:+UseSerialGC",
                                    "-jar",
                                    jarPath(),
                                    std::string(command),
                                    "--url",
                                    pulsar().serviceUrl};
  if (pulsar().secureDir) {
    words.insert(words.end(), {"--ca", pulsar().secureFile("ca.pem"), "--token-file",
                               pulsar().secureFile("token.txt")});
  }
  words.insert(words.end(), args.begin(), args.end());
  return runJsonLines(std::move(words));
}

JavaRun java(std::string_view command, const std::vector<std::string>& args) {
  JavaRun run = runJava(command, args);
  EXPECT_EQ(run.exitCode, 0) << "java " << command << " failed:\n" << run.output;
  return run;
}

}  // namespace reconsume::integration
