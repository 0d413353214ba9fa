// `reconsume dlq` as a process against the Pulsar standalone: list, stats, export, replay with a
// measured rate, purge, filters, an interrupted replay (kill -9) that loses nothing, dead letters
// written by the official Java client, and bad input (exit code 2, the value named, nothing
// changed). Dead letters are made by services as they would be: a consumer of this library with a
// retry policy, or the Java client's retry participant.
//
// The tool: RECONSUME_CLI, else the one built with the tests (RECONSUME_CLI_DEFAULT).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "integration/java_interop.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

extern char** environ;

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

std::string cliPath() {
  const char* configured = std::getenv("RECONSUME_CLI");
  if (configured != nullptr && *configured != '\0') return configured;
#ifdef RECONSUME_CLI_DEFAULT
  return RECONSUME_CLI_DEFAULT;
#else
  throw std::runtime_error("set RECONSUME_CLI to the reconsume tool (built without tools)");
#endif
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// One run of the tool, its stdout and stderr in temporary files (no pipe to fill up while a test
// waits for something else).
class CliProcess {
 public:
  // `args` after "dlq <verb>": the connection options are added.
  explicit CliProcess(const Strings& args) {
    Strings words = {cliPath()};
    words.insert(words.end(), args.begin(), args.end());
    words.insert(words.begin() + 3,
                 {"--url", pulsar().serviceUrl, "--admin-url", pulsar().adminUrl});
    if (pulsar().secureDir) {
      words.insert(words.begin() + 3, {"--tls-ca", pulsar().secureFile("ca.pem"), "--token-file",
                                       pulsar().secureFile("token.txt")});
    }
    outPath_ = temporary("out");
    errPath_ = temporary("err");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath_.c_str(), O_WRONLY | O_TRUNC,
                                     0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath_.c_str(), O_WRONLY | O_TRUNC,
                                     0);
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    int spawned = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      throw std::runtime_error("cannot start " + words[0] + ": " + std::strerror(spawned));
    }
  }
  ~CliProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    ::unlink(outPath_.c_str());
    ::unlink(errPath_.c_str());
  }

  void killHard() { ::kill(pid_, SIGKILL); }

  // Waits for the end; the exit code (128 + signal when killed).
  int wait() {
    if (pid_ > 0) {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      pid_ = -1;
    }
    return exitCode_;
  }
  std::string out() const { return readFile(outPath_); }
  std::string err() const { return readFile(errPath_); }

 private:
  static std::string temporary(const char* what) {
    std::string path = "/tmp/reconsume-dlq-cli-" + std::string(what) + "-XXXXXX";
    int fd = ::mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("mkstemp: " + std::string(std::strerror(errno)));
    ::close(fd);
    return path;
  }

  pid_t pid_ = -1;
  int exitCode_ = -1;
  std::string outPath_, errPath_;
};

struct CliRun {
  int code;
  std::string out, err;
  std::chrono::milliseconds took;
};

CliRun cli(const Strings& args) {
  auto start = std::chrono::steady_clock::now();
  CliProcess process(args);
  int code = process.wait();
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return {code, process.out(), process.err(), took};
}

std::vector<boost::json::object> jsonLines(const std::string& text) {
  std::vector<boost::json::object> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(boost::json::parse(line).as_object());
  }
  return lines;
}

ClientOptions clientOptions() {
  ClientOptions options;
  if (pulsar().secureDir) {
    options.tls.caFile = pulsar().secureFile("ca.pem");
    options.token = pulsar().adminOptions().token;
  }
  return options;
}

// A service on a fresh topic whose consumer dead-letters what it is told to.
class DlqCli : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = Client::connect(pulsar().serviceUrl, clientOptions());
    admin_ = Admin::connect(pulsar().adminUrl, pulsar().adminOptions());
    topic_ = uniqueTopic("dlq-cli");
    ConsumerOptions options;
    options.topics = {topic_};
    options.subscription = "billing";
    options.initialPosition = InitialPosition::earliest;
    options.retry = RetryPolicy::levels(DelayLevels::parse("1s"));
    consumer_ = client_.subscribe(options);
    producer_ = client_.createProducer(topic_);
    dlq_ = *consumer_.deadLetterTopic();
  }
  void TearDown() override { client_.close(); }

  // Dead-letters `count` messages "<prefix>-<i>" with `reason`, key "customer-<i % 3>".
  void deadLetter(const std::string& prefix, int count, const std::string& reason) {
    for (int i = 0; i < count; ++i) {
      OutgoingMessage message;
      message.payload = prefix + "-" + std::to_string(i);
      message.key = "customer-" + std::to_string(i % 3);
      producer_.send(message);
      auto received = consumer_.receive(10s);
      ASSERT_TRUE(received) << "nothing received on " << topic_;
      consumer_.deadLetter(*received, reason);
    }
  }

  std::int64_t backlog() { return admin_.backlog(dlq_, "reconsume-dlq"); }

  // Every message the origin's consumer receives until none came for `quiet`, acknowledged.
  std::vector<Message> drainOrigin(std::chrono::milliseconds quiet = 3s) {
    std::vector<Message> received;
    while (auto message = consumer_.receive(quiet)) {
      received.push_back(*message);
      consumer_.acknowledge(*message);
    }
    return received;
  }

  // The payloads the tool lists.
  std::multiset<std::string> listedPayloads() {
    auto run = cli({"dlq", "export", dlq_});
    EXPECT_EQ(run.code, 0) << run.err;
    std::multiset<std::string> payloads;
    for (const auto& line : jsonLines(run.out)) {
      payloads.insert(std::string(line.at("payload").as_string()));
    }
    return payloads;
  }

  Client client_;
  Admin admin_;
  std::string topic_, dlq_;
  Consumer consumer_;
  Producer producer_;
};

TEST_F(DlqCli, ListStatsAndExportChangeNothing) {
  deadLetter("timeout", 3, "gateway timeout");
  deadLetter("invalid", 2, "invalid order");
  ASSERT_EQ(backlog(), 5);

  auto list = cli({"dlq", "list", dlq_});
  EXPECT_EQ(list.code, 0) << list.err;
  std::istringstream lines(list.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 80u * 3) << line;  // bytes: the ellipsis is 3 bytes
    rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), 7u) << list.out;  // header, 5 rows, summary
  EXPECT_NE(rows[1].find("explicit"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find("gateway timeout"), std::string::npos) << rows[1];

  auto json = cli({"dlq", "list", "--json", dlq_});
  auto items = jsonLines(json.out);
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items[0].at("originTopic").as_string(), topic_);
  EXPECT_EQ(items[0].at("cause").as_string(), "explicit");

  auto stats = cli({"dlq", "stats", "--json", dlq_});
  ASSERT_EQ(stats.code, 0) << stats.err;
  auto counts = boost::json::parse(stats.out).as_object();
  EXPECT_EQ(counts.at("count").as_int64(), 5);
  EXPECT_EQ(counts.at("byReason").as_object().at("gateway timeout").as_int64(), 3);
  EXPECT_EQ(counts.at("byReason").as_object().at("invalid order").as_int64(), 2);
  EXPECT_EQ(counts.at("ages").as_array()[0].as_object().at("count").as_int64(), 5);
  auto text = cli({"dlq", "stats", dlq_});
  EXPECT_NE(text.out.find("By reason"), std::string::npos) << text.out;

  auto exported = cli({"dlq", "export", dlq_});
  auto records = jsonLines(exported.out);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[4].at("payload").as_string(), "invalid-1");
  EXPECT_EQ(records[4].at("properties").as_object().at("DEAD_LETTER_CAUSE").as_string(),
            "explicit");

  EXPECT_EQ(backlog(), 5) << "list, stats and export acknowledge nothing";
  // Nothing was delivered on the subscription either: the first delivery is still the first.
  ConsumerOptions options;
  options.topics = {dlq_};
  options.subscription = "reconsume-dlq";
  auto inspector = client_.subscribe(options);
  for (int i = 0; i < 5; ++i) {
    auto message = inspector.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->redeliveryCount(), 0);
  }
  inspector.close();
}

TEST_F(DlqCli, FiltersSelect) {
  deadLetter("timeout", 3, "gateway timeout");
  deadLetter("invalid", 2, "invalid order");
  auto count = [&](Strings filters) {
    Strings args = {"dlq", "list", "--json"};
    args.insert(args.end(), filters.begin(), filters.end());
    args.push_back(dlq_);
    auto run = cli(args);
    EXPECT_EQ(run.code, 0) << run.err;
    return jsonLines(run.out).size();
  };
  EXPECT_EQ(count({"--reason", "time(d )?out"}), 3u);
  EXPECT_EQ(count({"--cause", "explicit"}), 5u);
  EXPECT_EQ(count({"--cause", "exhausted"}), 0u);
  EXPECT_EQ(count({"--origin", topic_}), 5u);
  EXPECT_EQ(count({"--key", "customer-0"}), 2u);
  EXPECT_EQ(count({"--newer-than", "1h"}), 5u);
  EXPECT_EQ(count({"--older-than", "1h"}), 0u);
  auto first = jsonLines(cli({"dlq", "list", "--json", dlq_}).out).at(0);
  EXPECT_EQ(count({"--id", std::string(first.at("id").as_string())}), 1u);
}

TEST_F(DlqCli, ReplayAtARateWhoseEffectiveRateIsMeasured) {
  constexpr int kCount = 41;
  constexpr double kRate = 20;
  deadLetter("order", kCount, "downstream timeout");
  auto run = cli({"dlq", "replay", "--rate", "20/s", "--json", dlq_});
  ASSERT_EQ(run.code, 0) << run.err;
  auto result = boost::json::parse(run.out).as_object();
  EXPECT_EQ(result.at("replayed").as_int64(), kCount);

  auto replayed = drainOrigin();
  ASSERT_EQ(replayed.size(), static_cast<std::size_t>(kCount));
  std::int64_t first = INT64_MAX, last = 0;
  for (const auto& message : replayed) {
    EXPECT_EQ(message.property("REPLAY_COUNT"), "1");
    EXPECT_FALSE(message.property("RECONSUMETIMES"));
    std::int64_t at = std::stoll(*message.property("REPLAYED_AT"));
    first = std::min(first, at);
    last = std::max(last, at);
  }
  // 40 intervals of 50 ms: 2 s. The bucket never goes faster; slower only by scheduling delays.
  double effective = (kCount - 1) * 1000.0 / static_cast<double>(last - first);
  std::printf(
      "[ measured ] replay --rate 20/s of %d dead letters: %.2f/s between the first and "
      "the last republish; the process took %lld ms\n",
      kCount, effective, static_cast<long long>(run.took.count()));
  EXPECT_LE(effective, kRate * 1.02);
  EXPECT_GE(effective, kRate * 0.85);
  EXPECT_GE(run.took, 2000ms);
  EXPECT_EQ(backlog(), 0);
}

TEST_F(DlqCli, ReplayToAnotherTopicAndDryRun) {
  deadLetter("order", 3, "timeout");
  auto target = uniqueTopic("dlq-cli-target");
  auto dry = cli({"dlq", "replay", "--dry-run", "--to", target, dlq_});
  EXPECT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would replay 3 of 3"), std::string::npos) << dry.out;
  EXPECT_EQ(backlog(), 3);

  ConsumerOptions options;
  options.topics = {target};
  options.subscription = "check";
  options.initialPosition = InitialPosition::earliest;
  auto check = client_.subscribe(options);
  auto run = cli({"dlq", "replay", "--to", target, "--limit", "2", dlq_});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("replayed 2 of 2"), std::string::npos) << run.out;
  for (int i = 0; i < 2; ++i) {
    auto message = check.receive(10s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->data(), "order-" + std::to_string(i));
  }
  EXPECT_EQ(backlog(), 1);
  EXPECT_FALSE(consumer_.receive(500ms)) << "nothing went to the origin";
}

TEST_F(DlqCli, PurgeOnlyWhatMatches) {
  deadLetter("keep", 2, "timeout");
  deadLetter("garbage", 3, "invalid order");
  auto refused = cli({"dlq", "purge", dlq_});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--all"), std::string::npos) << refused.err;
  EXPECT_EQ(backlog(), 5);

  auto dry = cli({"dlq", "purge", "--dry-run", "--reason", "^invalid", dlq_});
  EXPECT_EQ(dry.code, 0) << dry.err;
  EXPECT_EQ(backlog(), 5);
  auto purge = cli({"dlq", "purge", "--json", "--reason", "^invalid", dlq_});
  ASSERT_EQ(purge.code, 0) << purge.err;
  EXPECT_EQ(boost::json::parse(purge.out).at("purged").as_int64(), 3);
  EXPECT_EQ(backlog(), 2);
  EXPECT_EQ(listedPayloads(), (std::multiset<std::string>{"keep-0", "keep-1"}));
}

TEST_F(DlqCli, AReplayKilledHalfWayLosesNothing) {
  constexpr int kCount = 100;
  deadLetter("order", kCount, "downstream timeout");
  std::set<std::string> all;
  for (int i = 0; i < kCount; ++i) all.insert("order-" + std::to_string(i));

  std::vector<Message> arrived;
  {
    CliProcess replay({"dlq", "replay", "--rate", "20", dlq_});
    // About a second in (20 republished at 20/s), kill it without a chance to clean up.
    while (arrived.size() < 20) {
      auto message = consumer_.receive(15s);
      ASSERT_TRUE(message) << "the replay did not get going: " << replay.err();
      arrived.push_back(*message);
    }
    replay.killHard();
    EXPECT_EQ(replay.wait(), 128 + SIGKILL);
  }
  for (auto& message : drainOrigin()) arrived.push_back(message);
  for (const auto& message : arrived) consumer_.acknowledge(message);

  std::set<std::string> republished;
  for (const auto& message : arrived) republished.insert(std::string(message.data()));
  auto stillDead = listedPayloads();
  std::set<std::string> accounted = republished;
  accounted.insert(stillDead.begin(), stillDead.end());
  EXPECT_EQ(accounted, all) << "every dead letter is republished or still in the dead-letter topic";
  EXPECT_LT(republished.size(), all.size()) << "the replay was interrupted";
  // At least once: one confirmed but not yet acknowledged when the process died is in both.
  std::size_t both = 0;
  for (const auto& payload : stillDead) both += republished.count(payload);
  std::printf("[ measured ] killed replay: %zu republished, %zu still dead, %zu in both\n",
              republished.size(), stillDead.size(), both);
}

TEST_F(DlqCli, JavaWrittenDeadLettersListAsCauseUnknown) {
  std::string topic = uniqueTopic("dlq-cli-java");
  ASSERT_EQ(runJava("produce", {"--topic", topic, "--count", "2"}).exitCode, 0);
  // maxRedeliverCount 1: the second reconsume of each message dead-letters it; the dead-letter
  // producer creates reconsume-dlq so that they are kept.
  auto java =
      runJava("retry-participant",
              {"--topic", topic, "--subscription", "billing", "--max-redeliver", "1", "--receive",
               "4", "--then", "reconsume:0", "--initial-subscription", "reconsume-dlq"});
  ASSERT_EQ(java.exitCode, 0) << java.output;
  std::string dlq = topic + "-billing-DLQ";
  auto run = cli({"dlq", "list", "--json", dlq});
  ASSERT_EQ(run.code, 0) << run.err;
  auto items = jsonLines(run.out);
  ASSERT_EQ(items.size(), 2u) << run.out;
  for (const auto& item : items) {
    EXPECT_EQ(item.at("cause").as_string(), "unknown");
    EXPECT_EQ(item.at("originTopic").as_string(), topic);
    EXPECT_EQ(item.at("reconsumeTimes").as_int64(), 2);
  }
  auto unknown = cli({"dlq", "list", "--json", "--cause", "unknown", dlq});
  EXPECT_EQ(jsonLines(unknown.out).size(), 2u);
}

TEST_F(DlqCli, BadInputIsNamedExitsTwoAndChangesNothing) {
  deadLetter("order", 2, "timeout");
  struct Case {
    Strings args;
    std::string named;
  };
  std::string missing = uniqueTopic("dlq-cli-missing") + "-DLQ";
  std::vector<Case> cases = {
      {{"dlq", "list", missing}, missing},
      {{"dlq", "list", "--reason", "time(out", dlq_}, "'time(out'"},
      {{"dlq", "purge", "--reason", "[", dlq_}, "'['"},
      {{"dlq", "list", "--older-than", "5 minutes", dlq_}, "'5 minutes'"},
      {{"dlq", "replay", "--newer-than", "1y", dlq_}, "'1y'"},
      {{"dlq", "replay", "--rate", "0", dlq_}, "--rate '0'"},
      {{"dlq", "replay", "--rate", "-5/s", dlq_}, "--rate '-5/s'"},
      {{"dlq", "show", dlq_, "12-7"}, "'12-7'"},
  };
  for (const auto& c : cases) {
    auto run = cli(c.args);
    EXPECT_EQ(run.code, 2) << c.named << "\n" << run.err;
    EXPECT_NE(run.err.find(c.named), std::string::npos) << run.err;
  }
  EXPECT_EQ(backlog(), 2);
  EXPECT_FALSE(admin_.topicExists(missing)) << "asking must not create it";
  EXPECT_FALSE(consumer_.receive(500ms)) << "nothing was replayed";
}

TEST_F(DlqCli, ATopicThatIsNoDeadLetterTopicWarnsAndStillWorks) {
  ConsumerOptions options;
  options.topics = {topic_};
  options.subscription = "reconsume-dlq";
  options.initialPosition = InitialPosition::earliest;
  client_.subscribe(options).close();
  producer_.send("just an order");
  auto run = cli({"dlq", "list", "--json", topic_});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(jsonLines(run.out).size(), 1u);
  EXPECT_NE(run.err.find("does not end in -DLQ"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("carries a retry property"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace reconsume::integration
