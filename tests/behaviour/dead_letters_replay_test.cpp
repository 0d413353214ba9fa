// Replaying and purging dead letters through the DeadLetterQueue API, on every backend: back to
// the origin or another topic, limits, dry runs, pacing, purging only what matches.
#include <future>
#include <memory>
#include <set>

#include "dead_letters_fixture.hpp"

namespace reconsume::behaviour {
namespace {

TEST_P(DeadLetters, ReplayRepublishesToTheOriginResetsTheCountAndAcknowledges) {
  makeService();
  OutgoingMessage keyed;
  keyed.payload = "order-1";
  keyed.key = "customer-7";
  keyed.orderingKey = "ok-7";
  auto firstId = deadLetter(keyed, "downstream timeout");
  exhaust("order-2", "downstream timeout");
  deadLetter("garbage", "invalid order");
  auto dlq = queue();

  ReplayOptions options;
  options.filter.reason = "timeout";
  auto replayedAt = now();
  auto result = dlq.replay(options);
  EXPECT_EQ(result.matched, 2u);
  EXPECT_EQ(result.replayed, 2u);
  EXPECT_EQ(result.failed + result.missing + result.skipped + result.notAttempted, 0u);
  EXPECT_EQ(result.error, "");
  ASSERT_EQ(result.items.size(), 2u);
  EXPECT_EQ(result.items[0].outcome, ReplayOutcome::replayed);
  EXPECT_EQ(result.items[0].destination, topic_);
  EXPECT_TRUE(result.items[0].newId);

  // Acknowledged on the dead-letter subscription: only the garbage is left.
  EXPECT_EQ(payloads(dlq.list()), (Strings{"garbage"}));
  EXPECT_EQ(dlqBacklog(), 1);

  // Back on the original topic, as new work with its origin and history.
  auto again = receiveNow(consumer_);
  EXPECT_EQ(again.topic(), topic_);
  EXPECT_EQ(again.id(), *result.items[0].newId);
  EXPECT_EQ(again.data(), "order-1");
  EXPECT_EQ(again.key(), "customer-7");
  EXPECT_EQ(again.orderingKey(), "ok-7");
  EXPECT_FALSE(again.property("RECONSUMETIMES"));
  EXPECT_FALSE(again.property("DEAD_LETTER_CAUSE"));
  EXPECT_FALSE(again.property("RECONSUME_REASON"));
  EXPECT_EQ(again.property("REAL_TOPIC"), topic_);
  EXPECT_EQ(again.property("ORIGIN_MESSAGE_ID"), firstId.toString());
  EXPECT_TRUE(again.property("RECONSUME_HISTORY"));
  EXPECT_FALSE(again.property("FIRST_FAILURE_TIME")) << "the time limit starts again too";
  EXPECT_EQ(again.property("REPLAY_COUNT"), "1");
  auto at = std::stoll(*again.property("REPLAYED_AT"));
  auto expectedMs =
      std::chrono::duration_cast<std::chrono::milliseconds>(replayedAt.time_since_epoch()).count();
  if (embedded()) {
    EXPECT_EQ(at, expectedMs);
  } else {
    EXPECT_GE(at, expectedMs);
  }
  auto second = receiveNow(consumer_);
  EXPECT_EQ(second.data(), "order-2");
  EXPECT_FALSE(second.property("RECONSUME_LEVEL"));
  EXPECT_FALSE(second.property("DELAY_TIME"));

  // It fails again: back in the dead-letter topic, and a second replay is visibly the second.
  consumer_.deadLetter(again, "downstream timeout, still");
  consumer_.acknowledge(second);
  DeadLetterFilter stillFailing;
  stillFailing.reason = "still";
  auto back = dlq.list(stillFailing);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].replayCount, 1);
  options.filter = stillFailing;
  EXPECT_EQ(dlq.replay(options).replayed, 1u);
  EXPECT_EQ(receiveNow(consumer_).property("REPLAY_COUNT"), "2");
}

TEST_P(DeadLetters, AReplayedMessageGetsItsRetriesAgainUnderATimeLimit) {
  // Retrying limited to 1 s in all; the dead letter is replayed after longer than that (an
  // outage). It must get its retries as new work does, not go straight back as expired.
  topic_ = uniqueTopic("dlq-limited");
  consumer_ = client().subscribe(retryOptions(
      topic_, "billing",
      RetryPolicy::levels(DelayLevels::parse("100ms"), 3).withTimeLimit(std::chrono::seconds(1))));
  producer_ = client().createProducer(topic_);
  producer_.send("order-1");
  auto first = receiveNow(consumer_);
  auto due = now() + 100ms;
  consumer_.reconsumeLater(first);  // the first hop stamps FIRST_FAILURE_TIME
  auto retried = receiveAt(consumer_, due);
  ASSERT_TRUE(retried.property("FIRST_FAILURE_TIME"));
  consumer_.deadLetter(retried, "downstream down");
  letPass(1500ms);

  ReplayOptions options;
  options.filter.reason = "down";
  ASSERT_EQ(queue().replay(options).replayed, 1u);
  auto replayed = receiveNow(consumer_);
  EXPECT_EQ(replayed.data(), "order-1");
  due = now() + 100ms;
  consumer_.reconsumeLater(replayed);
  auto again = receiveAt(consumer_, due);
  EXPECT_EQ(again.data(), "order-1");
  EXPECT_EQ(again.property("RECONSUMETIMES"), "1");
  consumer_.acknowledge(again);
  EXPECT_EQ(dlqBacklog(), 0) << "nothing went back to the dead-letter topic as expired";
}

TEST_P(DeadLetters, ReplayToAnotherTopicWithALimit) {
  makeService();
  for (int i = 0; i < 4; ++i) deadLetter("order-" + std::to_string(i), "bad");
  auto elsewhere = uniqueTopic("dlq-replay-target");
  ConsumerOptions options;
  options.topics = {elsewhere};
  options.subscription = "check";
  options.initialPosition = InitialPosition::earliest;
  auto target = client().subscribe(options);

  ReplayOptions replay;
  replay.to = elsewhere;
  replay.limit = 3;
  auto result = queue().replay(replay);
  EXPECT_EQ(result.replayed, 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(receiveNow(target).data(), "order-" + std::to_string(i));
  }
  expectNothing(target);
  EXPECT_EQ(payloads(queue().list()), (Strings{"order-3"}));
  expectNothing(consumer_);  // not to the origin
}

TEST_P(DeadLetters, DryRunsChangeNothing) {
  makeService();
  deadLetter("a", "bad");
  deadLetter("b", "worse");
  auto dlq = queue();
  ReplayOptions replay;
  replay.dryRun = true;
  auto planned = dlq.replay(replay);
  EXPECT_TRUE(planned.dryRun);
  EXPECT_EQ(planned.matched, 2u);
  EXPECT_EQ(planned.replayed, 0u);
  ASSERT_EQ(planned.items.size(), 2u);
  EXPECT_EQ(planned.items[0].outcome, ReplayOutcome::planned);
  EXPECT_EQ(planned.items[0].destination, topic_);
  PurgeOptions purge;
  purge.dryRun = true;
  auto wouldPurge = dlq.purge(purge);
  EXPECT_EQ(wouldPurge.matched, 2u);
  EXPECT_EQ(wouldPurge.purged, 0u);
  EXPECT_EQ(wouldPurge.purgedIds.size(), 2u);
  EXPECT_EQ(dlqBacklog(), 2);
  EXPECT_EQ(dlq.list().size(), 2u);
  expectNothing(consumer_);
}

TEST_P(DeadLetters, ReplayPacesOnTheQueuesClock) {
  makeService();
  for (int i = 0; i < 5; ++i) deadLetter("order-" + std::to_string(i), "bad");
  // The pacing clock is the test's own: each republish waits for it, on any backend.
  auto pace = std::make_shared<ManualClock>();
  DeadLetterQueueOptions queueOptions;
  queueOptions.clock = pace;
  auto dlq = queue(queueOptions);
  ReplayOptions options;
  options.ratePerSecond = 4;  // 250 ms apart
  std::vector<std::size_t> confirmed;
  options.onProgress = [&](const ReplayProgress& progress) {
    confirmed.push_back(progress.confirmed);
  };
  auto start = pace->now();
  auto running = std::async(std::launch::async, [&] { return dlq.replay(options); });
  // Moves the clock to each timer the replay sets, until it is done.
  while (running.wait_for(1ms) != std::future_status::ready) {
    if (auto next = pace->nextTimer()) pace->set(*next);
  }
  auto result = running.get();
  EXPECT_EQ(result.replayed, 5u);
  EXPECT_EQ(result.elapsed, 1s) << "four intervals of 250 ms after the first";
  ASSERT_FALSE(confirmed.empty());
  EXPECT_EQ(confirmed.back(), 5u);
  for (int i = 0; i < 5; ++i) {
    auto message = receiveNow(consumer_);
    auto at = std::chrono::system_clock::time_point(
        std::chrono::milliseconds(std::stoll(*message.property("REPLAYED_AT"))));
    EXPECT_EQ(at, start + i * 250ms) << message.data();
  }
}

TEST_P(DeadLetters, PurgeAcknowledgesOnlyTheMatchingOnes) {
  makeService();
  deadLetter("keep-1", "timeout");
  deadLetter("garbage-1", "invalid order");
  deadLetter("keep-2", "timeout");
  deadLetter("garbage-2", "invalid order");
  auto dlq = queue();
  PurgeOptions purge;
  purge.filter.reason = "^invalid";
  auto result = dlq.purge(purge);
  EXPECT_EQ(result.matched, 2u);
  EXPECT_EQ(result.purged, 2u);
  EXPECT_EQ(result.failed + result.missing, 0u);
  EXPECT_EQ(result.purgedIds.size(), 2u);
  EXPECT_EQ(payloads(dlq.list()), (Strings{"keep-1", "keep-2"}));
  EXPECT_EQ(dlqBacklog(), 2);
  // The ones kept were returned to the subscription untouched.
  ConsumerOptions options;
  options.topics = {deadLetterTopic()};
  options.subscription = "reconsume-dlq";
  auto inspector = client().subscribe(options);
  std::set<std::string> seen;
  for (int i = 0; i < 2; ++i) seen.insert(std::string(receiveNow(inspector).data()));
  EXPECT_EQ(seen, (std::set<std::string>{"keep-1", "keep-2"}));
  expectNothing(inspector);
}

}  // namespace
}  // namespace reconsume::behaviour
