// `reconsume dlq replay|purge` as processes against the Pulsar standalone: a measured rate, another
// topic, dry runs, purging what matches, a replay killed half-way (kill -9) that loses nothing.
#include <algorithm>
#include <boost/json/parse.hpp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <set>

#include "integration/dlq_cli_support.hpp"

namespace reconsume::integration {
namespace {

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

}  // namespace
}  // namespace reconsume::integration
