// Dead-letter inspection (SPEC.md section 4) through the DeadLetterQueue API, on every backend:
// list, show, stats, export, replay, purge, filters and bad input. Dead letters are made the way
// services make them: a consumer with a retry policy dead-letters or exhausts its messages.
#include <boost/json.hpp>
#include <future>
#include <set>
#include <sstream>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class DeadLetters : public BehaviourTest {
 protected:
  // A topic with a consumer whose retry policy has one 100 ms level and maxRetries 1, so a second
  // reconsumeLater exhausts a message.
  void makeService(const std::string& prefix = "dlq-orders") {
    topic_ = uniqueTopic(prefix);
    consumer_ = client().subscribe(
        retryOptions(topic_, "billing", RetryPolicy::levels(DelayLevels::parse("100ms"), 1)));
    producer_ = client().createProducer(topic_);
  }

  // Sends `message` and dead-letters it explicitly with `reason`; returns the original's id.
  MessageId deadLetter(OutgoingMessage message, const std::string& reason) {
    auto id = producer_.send(message);
    auto received = receiveNow(consumer_);
    EXPECT_EQ(received.id(), id);
    consumer_.deadLetter(received, reason);
    return id;
  }
  MessageId deadLetter(const std::string& payload, const std::string& reason) {
    OutgoingMessage message;
    message.payload = payload;
    return deadLetter(std::move(message), reason);
  }

  // Sends `payload` and fails it twice: the second reconsumeLater exhausts the policy.
  MessageId exhaust(const std::string& payload, const std::string& reason) {
    auto id = producer_.send(payload);
    auto received = receiveNow(consumer_);
    ReconsumeOptions retry;
    retry.reason = reason;
    auto due = now() + 100ms;
    consumer_.reconsumeLater(received, retry);
    auto again = receiveAt(consumer_, due);
    consumer_.reconsumeLater(again, retry);
    return id;
  }

  std::string deadLetterTopic() const { return *consumer_.deadLetterTopic(); }
  DeadLetterQueue queue(DeadLetterQueueOptions options = {}) {
    return DeadLetterQueue(client(), admin(), deadLetterTopic(), std::move(options));
  }
  std::int64_t dlqBacklog() { return admin().backlog(deadLetterTopic(), "reconsume-dlq"); }

  static std::vector<std::string> payloads(const std::vector<DeadLetter>& deadLetters) {
    std::vector<std::string> out;
    for (const auto& d : deadLetters) out.emplace_back(d.message.data());
    return out;
  }

  std::string topic_;
  Consumer consumer_;
  Producer producer_;
};

using Strings = std::vector<std::string>;

TEST_P(DeadLetters, ListShowsEachDeadLetterWithCauseReasonAndOrigin) {
  makeService();
  OutgoingMessage keyed;
  keyed.payload = "order-1";
  keyed.key = "customer-7";
  keyed.properties = {{"tenant", "acme"}};
  auto first = deadLetter(keyed, "schema v3 is not supported");
  auto second = exhaust("order-2", "inventory service timed out");

  auto dlq = queue();
  EXPECT_EQ(dlq.topic(), deadLetterTopic());
  EXPECT_EQ(dlq.subscription(), "reconsume-dlq");
  auto listed = dlq.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(payloads(listed), (Strings{"order-1", "order-2"}));
  const auto& explicitOne = listed[0];
  EXPECT_EQ(explicitOne.cause, "explicit");
  EXPECT_EQ(explicitOne.reason, "schema v3 is not supported");
  EXPECT_EQ(explicitOne.originTopic, topic_);
  EXPECT_EQ(explicitOne.originMessageId, first.toString());
  EXPECT_EQ(explicitOne.message.key(), "customer-7");
  EXPECT_EQ(explicitOne.message.property("tenant"), "acme");
  EXPECT_EQ(explicitOne.reconsumeTimes, 0);
  EXPECT_EQ(explicitOne.replayCount, 0);
  EXPECT_TRUE(explicitOne.hasRetryProperties);
  const auto& exhausted = listed[1];
  EXPECT_EQ(exhausted.cause, "exhausted");
  EXPECT_EQ(exhausted.reason, "inventory service timed out");
  EXPECT_EQ(exhausted.originMessageId, second.toString());
  EXPECT_EQ(exhausted.reconsumeTimes, 2);
  ASSERT_EQ(exhausted.history.size(), 2u);
  EXPECT_EQ(exhausted.history[0].delay, 100ms);
  EXPECT_EQ(exhausted.history[1].count, 2);
  EXPECT_TRUE(dlq.warnings().empty()) << dlq.warnings().front();

  auto shown = dlq.show(exhausted.id());
  EXPECT_EQ(shown.id(), exhausted.id());
  EXPECT_EQ(shown.message.data(), "order-2");
  EXPECT_EQ(dlq.list({}, 1).size(), 1u) << "a limit stops the scan";
}

TEST_P(DeadLetters, ListingChangesNothingOnTheDeadLetterSubscription) {
  makeService();
  for (int i = 0; i < 3; ++i) deadLetter("order-" + std::to_string(i), "bad");
  auto dlq = queue();
  ASSERT_EQ(dlqBacklog(), 3);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(dlq.list().size(), 3u);
    EXPECT_EQ(dlq.stats().count, 3u);
    std::ostringstream out;
    EXPECT_EQ(dlq.exportJson(out), 3u);
    EXPECT_EQ(dlqBacklog(), 3) << "round " << round;
  }
  // Never delivered on the subscription: the first delivery is still the first.
  ConsumerOptions options;
  options.topics = {deadLetterTopic()};
  options.subscription = "reconsume-dlq";
  auto inspector = client().subscribe(options);
  for (int i = 0; i < 3; ++i) {
    auto message = receiveNow(inspector);
    EXPECT_EQ(message.data(), "order-" + std::to_string(i));
    EXPECT_EQ(message.redeliveryCount(), 0);
  }
  inspector.close();
}

TEST_P(DeadLetters, ListSkipsWhatTheSubscriptionAcknowledgedAndDisturbsNoConsumer) {
  makeService();
  for (int i = 0; i < 5; ++i) deadLetter("order-" + std::to_string(i), "bad");
  // A dead-letter processor took all five, handled 0, 2 and 3 and still holds 1 and 4.
  ConsumerOptions options;
  options.topics = {deadLetterTopic()};
  options.subscription = "reconsume-dlq";
  auto processor = client().subscribe(options);
  std::vector<Message> held;
  for (int i = 0; i < 5; ++i) {
    auto message = receiveNow(processor);
    if (i == 0 || i == 2 || i == 3) {
      processor.acknowledge(message);
    } else {
      held.push_back(message);
    }
  }
  EXPECT_EQ(dlqBacklog(), 2);

  auto dlq = queue();
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(payloads(dlq.list()), (Strings{"order-1", "order-4"})) << "round " << round;
  }
  EXPECT_EQ(dlqBacklog(), 2);
  expectNothing(processor);  // nothing was redelivered to it
  for (const auto& message : held) processor.acknowledge(message);
  EXPECT_TRUE(dlq.list().empty());
}

TEST_P(DeadLetters, StatsCountByCauseOriginReasonAndAge) {
  makeService();
  deadLetter("a", "timeout");
  letPass(2h);  // embedded: the first is now two hours old; Pulsar: nothing happens
  deadLetter("b", "timeout");
  deadLetter("c", "invalid order");
  exhaust("d", "timeout");
  auto stats = queue().stats();
  EXPECT_EQ(stats.count, 4u);
  EXPECT_EQ(stats.payloadBytes, 4u);
  EXPECT_EQ(stats.byCause, (std::map<std::string, std::size_t>{{"exhausted", 1}, {"explicit", 3}}));
  EXPECT_EQ(stats.byReason,
            (std::map<std::string, std::size_t>{{"invalid order", 1}, {"timeout", 3}}));
  EXPECT_EQ(stats.byOrigin, (std::map<std::string, std::size_t>{{topic_, 4}}));
  ASSERT_EQ(stats.ages.size(), 7u);
  std::size_t total = 0;
  for (const auto& bucket : stats.ages) total += bucket.count;
  EXPECT_EQ(total, 4u);
  if (embedded()) {
    EXPECT_EQ(stats.ages[0].count, 3u) << stats.ages[0].label;
    EXPECT_EQ(stats.ages[3].count, 1u) << stats.ages[3].label;  // <6h: two hours
    EXPECT_EQ(*stats.newest - *stats.oldest, 2h + 100ms);
  }
}

TEST_P(DeadLetters, ExportWritesEveryPropertyAndBinaryPayloadsAsBase64) {
  makeService();
  deadLetter("plain text", "bad");
  OutgoingMessage binary;
  binary.payload = std::string("\x00\xff\x10 raw", 7);
  binary.properties = {{"content-type", "application/octet-stream"}};
  deadLetter(binary, "undecodable");
  std::ostringstream out;
  EXPECT_EQ(queue().exportJson(out), 2u);

  std::vector<boost::json::object> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) {
    lines.push_back(boost::json::parse(line).as_object());
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].at("payloadEncoding").as_string(), "utf-8");
  EXPECT_EQ(lines[0].at("payload").as_string(), "plain text");
  EXPECT_EQ(lines[1].at("payloadEncoding").as_string(), "base64");
  EXPECT_EQ(lines[1].at("payload").as_string(), "AP8QIHJhdw==");
  EXPECT_EQ(lines[1].at("reason").as_string(), "undecodable");
  const auto& properties = lines[1].at("properties").as_object();
  EXPECT_EQ(properties.at("content-type").as_string(), "application/octet-stream");
  EXPECT_EQ(properties.at("DEAD_LETTER_CAUSE").as_string(), "explicit");
  EXPECT_EQ(properties.at("REAL_TOPIC").as_string(), topic_);
  EXPECT_TRUE(properties.contains("RECONSUME_HISTORY"));
}

TEST_P(DeadLetters, FiltersSelectByCauseReasonOriginKeyAgeAndId) {
  makeService();
  OutgoingMessage keyed;
  keyed.payload = "a";
  keyed.key = "customer-1";
  deadLetter(keyed, "gateway timeout");
  letPass(1h);
  deadLetter("b", "invalid order");
  exhaust("c", "read timed out");
  auto dlq = queue();
  auto select = [&](auto set) {
    DeadLetterFilter filter;
    set(filter);
    return payloads(dlq.list(filter));
  };
  EXPECT_EQ(select([](auto& f) { f.cause = "explicit"; }), (Strings{"a", "b"}));
  EXPECT_EQ(select([](auto& f) { f.cause = "exhausted"; }), (Strings{"c"}));
  EXPECT_EQ(select([](auto& f) { f.cause = "unknown"; }), Strings{});
  EXPECT_EQ(select([](auto& f) { f.reason = "time(d )?out"; }), (Strings{"a", "c"}));
  EXPECT_EQ(select([&](auto& f) { f.origin = topic_; }), (Strings{"a", "b", "c"}));
  EXPECT_EQ(select([](auto& f) { f.origin = "somewhere-else"; }), Strings{});
  EXPECT_EQ(select([](auto& f) { f.key = "customer-1"; }), (Strings{"a"}));
  auto all = dlq.list();
  EXPECT_EQ(select([&](auto& f) { f.ids = {all[1].id(), all[2].id()}; }), (Strings{"b", "c"}));
  if (embedded()) {
    EXPECT_EQ(select([](auto& f) { f.olderThan = 30min; }), (Strings{"a"}));
    EXPECT_EQ(select([](auto& f) { f.newerThan = 30min; }), (Strings{"b", "c"}));
  } else {
    EXPECT_EQ(select([](auto& f) { f.newerThan = 1h; }), (Strings{"a", "b", "c"}));
    EXPECT_EQ(select([](auto& f) { f.olderThan = 1h; }), Strings{});
  }
}

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
  EXPECT_TRUE(again.property("FIRST_FAILURE_TIME"));
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

TEST_P(DeadLetters, DeadLettersWrittenByTheJavaClientListAsCauseUnknown) {
  // The Java client writes these properties (tests/interop/README.md) and creates no subscription.
  auto origin = uniqueTopic("java-orders");
  auto dlqTopic = origin + "-billing-DLQ";
  auto producer = client().createProducer(dlqTopic);
  OutgoingMessage javaDeadLetter;
  javaDeadLetter.payload = "from java";
  javaDeadLetter.key = "k1";
  javaDeadLetter.properties = {
      {"RECONSUMETIMES", "3"},         {"DELAY_TIME", "100"},
      {"REAL_TOPIC", origin},          {"REAL_SUBSCRIPTION", "billing"},
      {"ORIGIN_MESSAGE_ID", "5:0:-1"}, {"ORIGIN_MESSAGE_IDY_TIME", "5:0:-1"}};
  producer.send(javaDeadLetter);
  DeadLetterQueue dlq(client(), admin(), dlqTopic);
  auto listed = dlq.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].cause, "unknown");
  EXPECT_EQ(listed[0].reason, "");
  EXPECT_EQ(listed[0].originTopic, origin);
  EXPECT_EQ(listed[0].originMessageId, "5:0:-1");
  EXPECT_EQ(listed[0].reconsumeTimes, 3);
  DeadLetterFilter unknown;
  unknown.cause = "unknown";
  EXPECT_EQ(dlq.list(unknown).size(), 1u);
  auto warnings = dlq.warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("no subscription 'reconsume-dlq'"), std::string::npos) << warnings[0];

  // Replay works too; the consumer creates the subscription at the earliest message.
  ConsumerOptions options;
  options.topics = {origin};
  options.subscription = "billing";
  options.initialPosition = InitialPosition::earliest;
  auto service = client().subscribe(options);
  EXPECT_EQ(dlq.replay().replayed, 1u);
  auto replayed = receiveNow(service);
  EXPECT_EQ(replayed.data(), "from java");
  EXPECT_EQ(replayed.property("REAL_SUBSCRIPTION"), "billing");
  EXPECT_FALSE(replayed.property("RECONSUMETIMES"));
  EXPECT_FALSE(replayed.property("DELAY_TIME"));
  EXPECT_TRUE(dlq.list().empty());
}

TEST_P(DeadLetters, APartitionedDeadLetterTopicIsReadPartitionByPartition) {
  auto dlqTopic = uniqueTopic("partitioned") + "-DLQ";
  admin().createPartitionedTopic(dlqTopic, 2);
  auto producer = client().createProducer(dlqTopic);
  ConsumerOptions subscription;
  subscription.topics = {dlqTopic};
  subscription.subscription = "reconsume-dlq";
  subscription.initialPosition = InitialPosition::earliest;
  client().subscribe(subscription).close();  // the subscription, on both partitions
  std::set<std::string> sent;
  for (int i = 0; i < 6; ++i) {
    OutgoingMessage message;
    message.payload = "m" + std::to_string(i);
    message.key = "key-" + std::to_string(i);
    message.properties = {{"DEAD_LETTER_CAUSE", "explicit"}, {"RECONSUME_REASON", "r"}};
    producer.send(message);
    sent.insert(message.payload);
  }
  DeadLetterQueue dlq(client(), admin(), dlqTopic);
  auto listed = dlq.list();
  std::set<std::string> seen;
  std::set<int> partitions;
  for (const auto& d : listed) {
    seen.insert(std::string(d.message.data()));
    partitions.insert(d.id().partition());
  }
  EXPECT_EQ(seen, sent);
  PurgeOptions purge;
  purge.filter.ids = {listed.front().id(), listed.back().id()};
  EXPECT_EQ(dlq.purge(purge).purged, 2u);
  EXPECT_EQ(dlq.list().size(), 4u);
  EXPECT_EQ(admin().backlog(dlqTopic, "reconsume-dlq"), 4);
}

TEST_P(DeadLetters, BadInputIsNamedAndChangesNothing) {
  makeService();
  deadLetter("a", "bad");
  auto dlq = queue();
  auto expectInvalid = [&](auto call, const std::string& named) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected an error naming " << named;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  DeadLetterFilter badRegex;
  badRegex.reason = "time(out";
  expectInvalid([&] { dlq.list(badRegex); }, "time(out");
  ReplayOptions replay;
  replay.filter = badRegex;
  expectInvalid([&] { dlq.replay(replay); }, "time(out");
  PurgeOptions purge;
  purge.filter = badRegex;
  expectInvalid([&] { dlq.purge(purge); }, "time(out");
  DeadLetterFilter badCause;
  badCause.cause = "poison";
  expectInvalid([&] { dlq.stats(badCause); }, "poison");
  for (double rate : {0.0, -3.0}) {
    ReplayOptions paced;
    paced.ratePerSecond = rate;
    expectInvalid([&] { dlq.replay(paced); }, "rate");
  }
  ReplayOptions zeroLimit;
  zeroLimit.limit = 0;
  expectInvalid([&] { dlq.replay(zeroLimit); }, "limit 0");
  ReplayOptions intoItself;
  intoItself.to = deadLetterTopic();
  expectInvalid([&] { dlq.replay(intoItself); }, deadLetterTopic());
  EXPECT_EQ(dlqBacklog(), 1);
  EXPECT_EQ(dlq.list().size(), 1u);
  expectNothing(consumer_);

  try {
    dlq.show(MessageId(123456, 7, -1));
    ADD_FAILURE() << "an unknown id was shown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_NE(std::string(e.what()).find("123456:7:-1"), std::string::npos) << e.what();
  }
}

TEST_P(DeadLetters, AnUnknownTopicIsNotFound) {
  auto missing = uniqueTopic("nothing-here") + "-DLQ";
  try {
    DeadLetterQueue dlq(client(), admin(), missing);
    ADD_FAILURE() << "opened " << missing;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::not_found);
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_FALSE(admin().topicExists(missing)) << "looking must not create it";
}

TEST_P(DeadLetters, ATopicThatIsNoDeadLetterTopicIsReadWithWarnings) {
  auto plain = uniqueTopic("just-orders");
  ConsumerOptions options;
  options.topics = {plain};
  options.subscription = "reconsume-dlq";
  client().subscribe(options).close();
  client().createProducer(plain).send("not a dead letter");
  DeadLetterQueue dlq(client(), admin(), plain);
  auto listed = dlq.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_FALSE(listed[0].hasRetryProperties);
  EXPECT_EQ(listed[0].cause, "unknown");
  auto warnings = dlq.warnings();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("does not end in -DLQ"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("carries a retry property"), std::string::npos) << warnings[1];
}

INSTANTIATE_TEST_SUITE_P(Backends, DeadLetters, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
