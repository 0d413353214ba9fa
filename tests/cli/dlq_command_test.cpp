// `reconsume dlq` run in-process on an embedded broker: each verb's output, exit codes, and bad
// input that is named and changes nothing. (tests/integration/dlq_cli_test.cpp runs the tool as a
// process against Pulsar.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <boost/json/parse.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "commands.hpp"
#include "lines_of.hpp"
#include "reconsume/reconsume.hpp"
#include "text_table.hpp"

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  int code;
  std::string out, err;
};

class DlqCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    url_ = "embedded://dlq-cli-" + std::to_string(++counter);
    client_ = Client::connect(url_);
    admin_ = Admin::connect(url_);
    topic_ = "persistent://public/default/orders";
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

  void deadLetter(const std::string& payload, const std::string& reason,
                  const std::string& key = "") {
    OutgoingMessage message;
    message.payload = payload;
    if (!key.empty()) message.key = key;
    producer_.send(message);
    auto received = consumer_.receive(5s);
    ASSERT_TRUE(received);
    consumer_.deadLetter(*received, reason);
  }

  Outcome run(std::vector<std::string> args) {
    args.insert(args.begin() + 2, {"--url", url_});
    std::ostringstream out, err;
    int code = runDlqCommandLine(args, out, err);
    return {code, out.str(), err.str()};
  }

  std::int64_t backlog() { return admin_.backlog(dlq_, "reconsume-dlq"); }

  std::string url_, topic_, dlq_;
  Client client_;
  Admin admin_;
  Consumer consumer_;
  Producer producer_;
};

TEST_F(DlqCommand, ListShowsATableWithinEightyColumns) {
  deadLetter("a",
             "inventory service timed out after waiting for a very long time indeed, "
             "longer than any table column would hold");
  deadLetter("b", "invalid order");
  auto result = run({"dlq", "list", dlq_});
  EXPECT_EQ(result.code, 0) << result.err;
  auto lines = linesOf(result.out);
  ASSERT_EQ(lines.size(), 4u) << result.out;
  EXPECT_EQ(lines[0].rfind("ID", 0), 0u);
  EXPECT_NE(lines[1].find("explicit"), std::string::npos);
  EXPECT_NE(lines[1].find("orders"), std::string::npos);
  EXPECT_NE(lines[2].find("invalid order"), std::string::npos);
  EXPECT_NE(lines[3].find("2 dead letters in orders-billing-DLQ"), std::string::npos) << lines[3];
  for (const auto& line : lines) EXPECT_LE(displayWidth(line), 80) << line;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(backlog(), 2) << "listing changes nothing";
}

TEST_F(DlqCommand, FiltersAndJsonLines) {
  deadLetter("a", "gateway timeout", "customer-1");
  deadLetter("b", "invalid order", "customer-2");
  deadLetter("c", "read timed out", "customer-1");
  auto result = run({"dlq", "list", "--jsonl", "--reason", "time(d )?out", dlq_});
  EXPECT_EQ(result.code, 0) << result.err;
  auto lines = linesOf(result.out);
  ASSERT_EQ(lines.size(), 2u) << result.out;
  EXPECT_EQ(boost::json::parse(lines[0]).at("reason").as_string(), "gateway timeout");
  EXPECT_EQ(boost::json::parse(lines[1]).at("reason").as_string(), "read timed out");

  result = run({"dlq", "list", "--jsonl", "--key", "customer-2", dlq_});
  ASSERT_EQ(linesOf(result.out).size(), 1u) << result.out;
  result = run({"dlq", "list", "--jsonl", "--cause", "unknown", dlq_});
  EXPECT_EQ(result.out, "");
  result = run({"dlq", "list", "--jsonl", "--limit", "1", dlq_});
  EXPECT_EQ(linesOf(result.out).size(), 1u);
  result = run({"dlq", "list", "--jsonl", "--newer-than", "1h", "--origin", "orders", dlq_});
  EXPECT_EQ(linesOf(result.out).size(), 3u);
}

TEST_F(DlqCommand, ShowStatsAndExport) {
  deadLetter("{\"order\":1}", "timeout");
  deadLetter(std::string("\x00\xff", 2), "undecodable");
  auto listed = run({"dlq", "list", "--jsonl", dlq_});
  auto id = std::string(boost::json::parse(linesOf(listed.out)[1]).at("id").as_string());

  auto show = run({"dlq", "show", dlq_, id});
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("Dead letter " + id), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("undecodable"), std::string::npos);
  EXPECT_NE(show.out.find("AP8="), std::string::npos) << "binary payload as base64";
  auto showJson = run({"dlq", "show", "--json", dlq_, id});
  EXPECT_EQ(boost::json::parse(showJson.out).at("payload").as_string(), "AP8=");

  auto stats = run({"dlq", "stats", dlq_});
  EXPECT_EQ(stats.code, 0) << stats.err;
  EXPECT_NE(stats.out.find("2 dead letters"), std::string::npos) << stats.out;
  EXPECT_NE(stats.out.find("By reason"), std::string::npos);
  for (const auto& line : linesOf(stats.out)) EXPECT_LE(displayWidth(line), 80) << line;
  auto statsJson = run({"dlq", "stats", "--json", dlq_});
  EXPECT_EQ(boost::json::parse(statsJson.out).at("count").as_int64(), 2);

  auto exported = run({"dlq", "export", dlq_});
  EXPECT_EQ(exported.code, 0) << exported.err;
  auto lines = linesOf(exported.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(boost::json::parse(lines[0]).at("payload").as_string(), "{\"order\":1}");
  EXPECT_EQ(boost::json::parse(lines[1]).at("payloadEncoding").as_string(), "base64");
  EXPECT_NE(exported.err.find("exported 2 dead letters"), std::string::npos) << exported.err;
  EXPECT_EQ(backlog(), 2);
}

TEST_F(DlqCommand, ReplayWithARateThenPurge) {
  deadLetter("a", "timeout");
  deadLetter("b", "invalid order");
  deadLetter("c", "timeout");
  auto dry = run({"dlq", "replay", "--dry-run", "--reason", "timeout", dlq_});
  EXPECT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would replay 2 of 2"), std::string::npos) << dry.out;
  EXPECT_EQ(backlog(), 3);

  auto replay = run({"dlq", "replay", "--rate", "50/s", "--reason", "timeout", dlq_});
  EXPECT_EQ(replay.code, 0) << replay.err;
  EXPECT_NE(replay.out.find("replayed 2 of 2"), std::string::npos) << replay.out;
  EXPECT_EQ(backlog(), 1);
  for (const char* payload : {"a", "c"}) {
    auto message = consumer_.receive(5s);
    ASSERT_TRUE(message);
    EXPECT_EQ(message->data(), payload);
    EXPECT_EQ(message->property("REPLAY_COUNT"), "1");
  }

  auto refused = run({"dlq", "purge", dlq_});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--all"), std::string::npos) << refused.err;
  EXPECT_EQ(backlog(), 1);
  auto purge = run({"dlq", "purge", "--json", "--reason", "^invalid", dlq_});
  EXPECT_EQ(purge.code, 0) << purge.err;
  EXPECT_EQ(boost::json::parse(purge.out).at("purged").as_int64(), 1);
  EXPECT_EQ(backlog(), 0);
}

// Whether `command` (jq, Python's json.tool) reads `text` as JSON: its exit status.
bool readBy(const std::string& command, const std::string& text) {
  std::string path = ::testing::TempDir() + "reconsume-json-" + std::to_string(::getpid());
  {
    std::ofstream file(path);
    file << text;
  }
  int status = std::system((command + " < '" + path + "' > /dev/null").c_str());
  std::remove(path.c_str());
  return status == 0;
}

// --json is one JSON document (an array for a list) that jq and `python3 -m json.tool` both
// read; --jsonl is one object per line; under --json an error is a JSON object too.
TEST_F(DlqCommand, JsonOutputIsOneDocumentThatJqAndPythonRead) {
  deadLetter("a", "gateway timeout", "customer-1");
  deadLetter("b", "invalid order", "customer-2");
  auto lines = linesOf(run({"dlq", "list", "--jsonl", dlq_}).out);
  ASSERT_EQ(lines.size(), 2u);
  auto id = std::string(boost::json::parse(lines[0]).at("id").as_string());

  std::vector<std::vector<std::string>> commands = {
      {"dlq", "list", "--json", dlq_},
      {"dlq", "list", "--json", "--cause", "exhausted", dlq_},  // none: []
      {"dlq", "show", "--json", dlq_, id},
      {"dlq", "stats", "--json", dlq_},
      {"dlq", "replay", "--json", "--dry-run", dlq_},
      {"dlq", "purge", "--json", "--dry-run", "--all", dlq_}};
  for (const auto& args : commands) {
    auto result = run(args);
    ASSERT_EQ(result.code, 0) << args[1] << ": " << result.err;
    EXPECT_TRUE(readBy("python3 -m json.tool", result.out)) << args[1] << ":\n" << result.out;
    EXPECT_TRUE(readBy("jq .", result.out)) << args[1] << ":\n" << result.out;
  }
  auto array = boost::json::parse(run({"dlq", "list", "--json", dlq_}).out).as_array();
  ASSERT_EQ(array.size(), 2u);
  EXPECT_EQ(array[0].at("id").as_string(), id);
  EXPECT_EQ(array[1].at("reason").as_string(), "invalid order");
  EXPECT_EQ(run({"dlq", "list", "--json", "--cause", "exhausted", dlq_}).out, "[]\n");

  auto bad = run({"dlq", "list", "--json", "--cause", "bogus", dlq_});
  EXPECT_EQ(bad.code, 2);
  auto error = boost::json::parse(bad.err).as_object();
  EXPECT_EQ(error.at("exitCode").as_int64(), 2);
  EXPECT_EQ(error.at("code").as_string(), "invalid argument");
  EXPECT_NE(std::string(error.at("error").as_string()).find("'bogus'"), std::string::npos)
      << bad.err;
  auto both = run({"dlq", "list", "--json", "--jsonl", dlq_});
  EXPECT_EQ(both.code, 2) << "--json and --jsonl exclude each other";
  EXPECT_EQ(backlog(), 2) << "nothing was changed";
}

TEST_F(DlqCommand, BadInputIsNamedExitsTwoAndChangesNothing) {
  deadLetter("a", "timeout");
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  std::vector<Case> cases = {
      {{"dlq", "list", "persistent://public/default/no-such-DLQ"}, "no-such-DLQ"},
      {{"dlq", "list", "--reason", "time(out", dlq_}, "time(out"},
      {{"dlq", "replay", "--reason", "[", dlq_}, "'['"},
      {{"dlq", "list", "--older-than", "5 minutes", dlq_}, "'5 minutes'"},
      {{"dlq", "purge", "--newer-than", "1y", dlq_}, "'1y'"},
      {{"dlq", "replay", "--rate", "0", dlq_}, "--rate '0'"},
      {{"dlq", "replay", "--rate", "-20/s", dlq_}, "--rate '-20/s'"},
      {{"dlq", "replay", "--limit", "0", dlq_}, "--limit '0'"},
      {{"dlq", "list", "--cause", "poison", dlq_}, "'poison'"},
      {{"dlq", "show", dlq_, "not-an-id"}, "'not-an-id'"},
      {{"dlq", "show", dlq_, "999:9:-1"}, "999:9:-1"},
      {{"dlq", "replay", "--to", dlq_, dlq_}, dlq_},
      {{"dlq", "list", "--no-such-option", dlq_}, "--no-such-option"},
      // An empty value (an unset shell variable) is refused, not read as "not given": these
      // once replayed to each origin and purged without the origin filter.
      {{"dlq", "replay", "--to", "", dlq_}, "--to: ''"},
      {{"dlq", "purge", "--reason", "timeout", "--origin", "", dlq_}, "--origin: ''"},
      {{"dlq", "list", "--category", "", dlq_}, "--category: ''"},
      {{"dlq", "list", "--subscription", "", dlq_}, "--subscription: ''"},
      {{"dlq", "list", ""}, "''"},
  };
  for (const auto& c : cases) {
    auto result = run(c.args);
    EXPECT_EQ(result.code, 2) << c.args[1] << " " << c.named << "\n" << result.err;
    EXPECT_NE(result.err.find(c.named), std::string::npos) << result.err;
    EXPECT_EQ(backlog(), 1) << c.named;
  }
  std::ostringstream out, err;
  EXPECT_EQ(runDlqCommandLine({"dlq", "list", "--url", "http://localhost:8080", dlq_}, out, err),
            2);
  EXPECT_NE(err.str().find("'http://localhost:8080'"), std::string::npos) << err.str();
  EXPECT_FALSE(consumer_.receive(50ms)) << "nothing was replayed";
}

TEST_F(DlqCommand, ATopicThatIsNoDeadLetterTopicWarnsAndWorks) {
  producer_.send("plain");
  ConsumerOptions options;
  options.topics = {topic_};
  options.subscription = "reconsume-dlq";
  options.initialPosition = InitialPosition::earliest;
  client_.subscribe(options).close();
  auto result = run({"dlq", "list", topic_});
  EXPECT_EQ(result.code, 0) << result.err;
  EXPECT_NE(result.err.find("warning: topic " + topic_ + " does not end in -DLQ"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("carries a retry property"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("1 dead letter in"), std::string::npos) << result.out;
}

// As the Go client writes them: REAL_TOPIC names the partition a message was received on.
TEST_F(DlqCommand, OriginTakesATopicWithItsPartitionsAndStatsGroupByTopic) {
  const std::string shipments = "persistent://public/default/shipments";
  admin_.createPartitionedTopic(shipments, 2);
  deadLetter("ours", "timeout");  // REAL_TOPIC orders, and the dead-letter subscription
  auto writer = client_.createProducer(dlq_);
  for (const char* origin :
       {"shipments-partition-0", "shipments-partition-1", "shipments", "shipments-partition-1"}) {
    OutgoingMessage message;
    message.payload = origin;
    message.properties = {{"RECONSUMETIMES", "4"},
                          {"REAL_TOPIC", "persistent://public/default/" + std::string(origin)}};
    writer.send(message);
  }
  auto count = [&](const std::string& origin) {
    auto result = run({"dlq", "list", "--jsonl", "--origin", origin, dlq_});
    EXPECT_EQ(result.code, 0) << result.err;
    return linesOf(result.out).size();
  };
  EXPECT_EQ(count("shipments"), 4u);
  EXPECT_EQ(count(shipments), 4u);
  EXPECT_EQ(count("shipments-partition-1"), 2u);
  EXPECT_EQ(count("orders"), 1u);
  auto listed = run({"dlq", "list", "--jsonl", "--origin", "shipments-partition-0", dlq_});
  auto item = boost::json::parse(listed.out).as_object();
  EXPECT_EQ(item.at("originTopic").as_string(), shipments + "-partition-0");
  EXPECT_EQ(item.at("originBaseTopic").as_string(), shipments);

  auto stats = run({"dlq", "stats", "--json", dlq_});
  EXPECT_EQ(stats.code, 0) << stats.err;
  auto byOrigin = boost::json::parse(stats.out).at("byOrigin").as_object();
  EXPECT_EQ(byOrigin.size(), 2u) << stats.out;
  EXPECT_EQ(byOrigin.at(shipments).as_int64(), 4);
  EXPECT_EQ(byOrigin.at(topic_).as_int64(), 1);
  auto text = run({"dlq", "stats", dlq_});
  EXPECT_NE(text.out.find("shipments"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("-partition-"), std::string::npos) << text.out;

  auto plan = run({"dlq", "replay", "--json", "--dry-run", "--origin", "shipments", dlq_});
  EXPECT_EQ(plan.code, 0) << plan.err;
  auto items = boost::json::parse(plan.out).at("items").as_array();
  ASSERT_EQ(items.size(), 4u);
  for (const auto& planned : items) {
    EXPECT_EQ(planned.at("destination").as_string(), shipments) << plan.out;
  }
  EXPECT_EQ(backlog(), 5) << "nothing changed";
}

}  // namespace
}  // namespace reconsume::tools
