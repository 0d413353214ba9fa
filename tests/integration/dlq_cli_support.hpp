// What the `reconsume dlq` process tests (dlq_cli_*_test.cpp) share: running the tool as a process
// and the DlqCli fixture, a service whose consumer dead-letters what it is told to.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {

using namespace std::chrono_literals;
using Strings = std::vector<std::string>;

// One run of the tool, its stdout and stderr in temporary files (no pipe to fill up while a test
// waits for something else).
class CliProcess {
 public:
  // `args` after "dlq <verb>": the connection options are added.
  explicit CliProcess(const Strings& args);
  ~CliProcess();

  void killHard();

  // Waits for the end; the exit code (128 + signal when killed).
  int wait();
  std::string out() const;
  std::string err() const;

 private:
  static std::string temporary(const char* what);

  pid_t pid_ = -1;
  int exitCode_ = -1;
  std::string outPath_, errPath_;
};

struct CliRun {
  int code;
  std::string out, err;
  std::chrono::milliseconds took;
};

CliRun cli(const Strings& args);

std::vector<boost::json::object> jsonLines(const std::string& text);

ClientOptions clientOptions();

// A service on a fresh topic whose consumer dead-letters what it is told to. Not in an anonymous
// namespace: the test files share this one class, so that gtest sees one DlqCli suite.
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

}  // namespace reconsume::integration
