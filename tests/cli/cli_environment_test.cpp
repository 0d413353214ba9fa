// The `reconsume` binary in its ecosystem, as processes: --version; connection settings from
// PULSAR_* variables and a client.conf (the broker is a refused port, so each run shows where it
// tried to connect); colour only on a terminal and never with NO_COLOR; -v showing the library's
// debug messages; the generated completion script completing in a real bash; the man page.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_process.hpp"
#include "unit/refusing_port.hpp"

namespace reconsume::testing {
namespace {

const std::string kRed = "\x1b[31m";

std::string scratch(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + name + "-" + std::to_string(::getpid());
  std::ofstream(path) << text;
  return path;
}

TEST(CliEnvironment, VersionPrintsTheProjectVersion) {
  auto run = runCli({"--version"});
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, std::string("reconsume ") + RECONSUME_VERSION + "\n");
}

TEST(CliEnvironment, PulsarServiceUrlAndTokenFileComeFromTheEnvironment) {
  RefusingPort broker;
  // The admin URL too: derived from the service URL it would be port 8080, where a Pulsar
  // standalone of the integration tests may be listening.
  auto run = runCli({"dlq", "list", "--timeout", "2s", "orders-billing-DLQ"},
                    {{{"PULSAR_SERVICE_URL", "pulsar://" + broker.hostPort()},
                      {"PULSAR_ADMIN_URL", "http://" + broker.hostPort()}}});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(mentions(run.err, broker.hostPort())) << run.err;

  run = runCli({"dlq", "list", "orders-billing-DLQ"},
               {{{"PULSAR_AUTH_TOKEN_FILE", "/nonexistent/reconsume-token"}}});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "PULSAR_AUTH_TOKEN_FILE '/nonexistent/reconsume-token'"))
      << run.err;

  // The command line wins.
  RefusingPort other;
  run = runCli({"dlq", "list", "--url", "pulsar://" + other.hostPort(), "--admin-url",
                "http://" + other.hostPort(), "--timeout", "2s", "orders-billing-DLQ"},
               {{{"PULSAR_SERVICE_URL", "pulsar://" + broker.hostPort()},
                 {"PULSAR_ADMIN_URL", "http://" + broker.hostPort()}}});
  EXPECT_EQ(run.code, 1);
  EXPECT_TRUE(mentions(run.err, other.hostPort())) << run.err;
  EXPECT_FALSE(mentions(run.err, broker.hostPort())) << run.err;
}

TEST(CliEnvironment, AClientConfNamedByPulsarClientConfIsRead) {
  RefusingPort broker;
  auto conf = scratch("client.conf",
                      "# as pulsar-admin reads it\n"
                      "brokerServiceUrl=pulsar://" +
                          broker.hostPort() +
                          "\n"
                          "webServiceUrl=http://" +
                          broker.hostPort() + "\n");
  auto run = runCli({"dlq", "stats", "--timeout", "2s", "orders-billing-DLQ"},
                    {{{"PULSAR_CLIENT_CONF", conf}}});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(mentions(run.err, broker.hostPort())) << run.err;

  auto oauth = scratch("oauth.conf",
                       "authPlugin=org.apache.pulsar.client.impl.auth.oauth2."
                       "AuthenticationOAuth2\n");
  run = runCli({"dlq", "list", "--client-conf", oauth, "orders-billing-DLQ"});
  EXPECT_EQ(run.code, 2);
  EXPECT_TRUE(mentions(run.err, "AuthenticationOAuth2")) << run.err;
  std::remove(conf.c_str());
  std::remove(oauth.c_str());
}

TEST(CliEnvironment, ColourOnlyOnATerminalAndNeverWithNoColor) {
  auto piped = runCli({"frobnicate"});
  EXPECT_EQ(piped.code, 2);
  EXPECT_FALSE(mentions(piped.err, kRed)) << "stderr is a file here";

  CliEnvironment terminal;
  terminal.terminal = true;
  auto coloured = runCli({"frobnicate"}, terminal);
  EXPECT_EQ(coloured.code, 2);
  EXPECT_TRUE(mentions(coloured.out, kRed + "error:")) << coloured.out;

  terminal.variables = {{"NO_COLOR", "1"}};
  auto plain = runCli({"frobnicate"}, terminal);
  EXPECT_EQ(plain.code, 2);
  EXPECT_TRUE(mentions(plain.out, "error: unknown command 'frobnicate'")) << plain.out;
  EXPECT_FALSE(mentions(plain.out, "\x1b[")) << plain.out;
}

TEST(CliEnvironment, VerboseShowsTheLibrarysDebugMessages) {
  RefusingPort broker;
  std::vector<std::string> args = {"perf", "--url", "pulsar://" + broker.hostPort(), "--timeout",
                                   "2s"};
  auto quiet = runCli(args);
  EXPECT_FALSE(mentions(quiet.err, "reconsume debug:")) << quiet.err;
  args.insert(args.begin() + 1, "-v");
  auto verbose = runCli(args);
  EXPECT_EQ(verbose.code, 1);
  EXPECT_TRUE(mentions(verbose.err, " reconsume debug: ")) << verbose.err;
  args[1] = "--log-level=info";
  EXPECT_FALSE(mentions(runCli(args).err, "reconsume debug:"));
}

TEST(CliEnvironment, EveryHelpFitsEightyColumns) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"demo", "--help"},
                                        {"perf", "--help"},
                                        {"dlq", "--help"},
                                        {"dlq", "list", "--help"},
                                        {"dlq", "show", "--help"},
                                        {"dlq", "stats", "--help"},
                                        {"dlq", "export", "--help"},
                                        {"dlq", "replay", "--help"},
                                        {"dlq", "purge", "--help"},
                                        {"completion", "--help"}}) {
    auto run = runCli(args);
    EXPECT_EQ(run.code, 0) << args[0];
    std::istringstream lines(run.out);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
      // Characters, not bytes: the help is ASCII but for the program's path in "Usage:".
      EXPECT_LE(line.size(), 80u) << args[0] << " " << (args.size() > 2 ? args[1] : "") << ":\n"
                                  << line;
    }
    EXPECT_GT(count, 3) << run.out;
  }
}

TEST(CliEnvironment, PerfJsonIsOneDocumentAndSoIsItsError) {
  auto run = runCli({"perf", "--json", "-n", "200"});
  ASSERT_EQ(run.code, 0) << run.err;
  auto json = scratch("perf.json", run.out);
  EXPECT_EQ(std::system(("/usr/bin/python3 -m json.tool " + json + " > /dev/null").c_str()), 0)
      << run.out;
  EXPECT_EQ(std::system(("jq -e '.phases | length == 3' " + json + " > /dev/null").c_str()), 0)
      << run.out;
  // The kernel's share of each phase's CPU time is part of it.
  EXPECT_EQ(std::system(("jq -e '.phases | all(.cpuSystemSeconds >= 0 and "
                         ".cpuSystemSeconds <= .cpuSeconds)' " +
                         json + " > /dev/null")
                            .c_str()),
            0)
      << run.out;
  // embedded:// has no bookies: no figure, and the document says why.
  EXPECT_EQ(std::system(("jq -e '(.phases | all(.bookieEntryReads == null)) and "
                         "(.bookieEntryReadsProblem | test(\"no bookie\"))' " +
                         json + " > /dev/null")
                            .c_str()),
            0)
      << run.out;
  std::remove(json.c_str());
  RefusingPort broker;
  auto failed =
      runCli({"perf", "--json", "--url", "pulsar://" + broker.hostPort(), "--timeout", "1s"});
  EXPECT_EQ(failed.code, 1);
  EXPECT_EQ(failed.out, "");
  EXPECT_EQ(failed.err.rfind("{\"error\":", 0), 0u)
      << "nothing but the JSON error (the library's warnings are quiet under --json):\n"
      << failed.err;
  EXPECT_TRUE(mentions(failed.err, "\"exitCode\":1")) << failed.err;
}

// What the completion script offers for `words` (the last one being completed), in bash.
std::string complete(const std::string& script, const std::vector<std::string>& words) {
  std::string array;
  for (const auto& word : words) array += " '" + word + "'";
  std::string command = "bash --norc -c 'source \"$0\"; COMP_WORDS=(reconsume" + array +
                        "); COMP_CWORD=" + std::to_string(words.size()) +
                        "; _reconsume; echo \"${COMPREPLY[*]}\"' " + script;
  // The quoting above is simple: the words in these tests have no quotes of their own.
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    while (auto got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
    ::pclose(pipe);
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CliEnvironment, TheCompletionScriptCompletesCommandsVerbsOptionsAndValues) {
  auto generated = runCli({"completion", "bash"});
  ASSERT_EQ(generated.code, 0) << generated.err;
  auto script = scratch("reconsume.bash", generated.out);
  EXPECT_EQ(complete(script, {"d"}), "demo dlq");
  EXPECT_EQ(complete(script, {"dlq", "re"}), "replay");
  EXPECT_EQ(complete(script, {"dlq", "replay", "--ra"}), "--rate");
  EXPECT_EQ(complete(script, {"dlq", "list", "--cause", "ex"}), "exhausted explicit expired");
  EXPECT_EQ(complete(script, {"perf", "--log-level", "d"}), "debug");
  EXPECT_TRUE(
      mentions(complete(script, {"dlq", "list", "--tls-ca", "/etc/host"}), "/etc/hostname"));
  std::remove(script.c_str());

  auto zsh = runCli({"completion", "zsh"});
  EXPECT_EQ(zsh.code, 0);
  EXPECT_EQ(zsh.out.rfind("#compdef reconsume\n", 0), 0u);
  EXPECT_TRUE(mentions(zsh.out, "\"dlq:replay\") cmdpath=\"dlq replay\"")) << zsh.out;
  EXPECT_EQ(runCli({"completion", "fish"}).code, 2);
}

TEST(CliEnvironment, TheBuildWroteAManPageWithEveryCommand) {
#ifdef RECONSUME_MAN_PAGE
  std::ifstream file(RECONSUME_MAN_PAGE);
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_TRUE(file) << RECONSUME_MAN_PAGE;
  for (const char* part : {".SH ENVIRONMENT", "PULSAR_SERVICE_URL", ".SH COMMANDS",
                           "reconsume dlq replay", "--dry-run", "Exit codes"}) {
    EXPECT_TRUE(mentions(text.str(), part)) << part;
  }
#else
  GTEST_SKIP() << "help2man was not installed when this was built (scripts/install-deps.sh "
                  "installs it)";
#endif
}

}  // namespace
}  // namespace reconsume::testing
