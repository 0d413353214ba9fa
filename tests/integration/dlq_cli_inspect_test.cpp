// `reconsume dlq list|stats|export` as a process against the Pulsar standalone: they change
// nothing, and filters select.
#include <boost/json/parse.hpp>
#include <sstream>

#include "integration/dlq_cli_support.hpp"

namespace reconsume::integration {
namespace {

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

  auto json = cli({"dlq", "list", "--jsonl", dlq_});
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
    Strings args = {"dlq", "list", "--jsonl"};
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
  auto first = jsonLines(cli({"dlq", "list", "--jsonl", dlq_}).out).at(0);
  EXPECT_EQ(count({"--id", std::string(first.at("id").as_string())}), 1u);
}

}  // namespace
}  // namespace reconsume::integration
