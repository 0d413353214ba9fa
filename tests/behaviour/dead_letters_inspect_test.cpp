// DeadLetterQueue inspection (SPEC.md section 4) on every backend: list, show, stats, export and
// filters, over dead letters made as services make them (a consumer with a retry policy).
#include <boost/json.hpp>
#include <map>
#include <sstream>

#include "dead_letters_fixture.hpp"

namespace reconsume::behaviour {
namespace {

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
  auto processor = client().subscribe(confirmedAcks(options));
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

// The one instantiation of the DeadLetters suite: it runs the tests of every
// dead_letters_*_test.cpp on every backend.
INSTANTIATE_TEST_SUITE_P(Backends, DeadLetters, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
