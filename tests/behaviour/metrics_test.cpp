// Metrics count what the application did, on both backends: messages sent, received,
// acknowledged and negatively acknowledged; retries by level, dead letters by cause; how long the
// moves took and how late the retry arrived. The same counts reach a MetricsSink as they happen,
// and the Prometheus endpoint serves them in a text that Prometheus's own parser reads (Debian's
// python3-prometheus-client, tests/tools/prometheus_scrape.py).
#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <mutex>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Metrics : public BehaviourTest {};

// Adds up what it is told, as an application's own metrics system would.
class RecordingSink final : public MetricsSink {
 public:
  void add(const MetricSeries& series, std::uint64_t delta) override {
    std::lock_guard lock(mutex_);
    counts_[series.name + "|" + series.label("messaging.consumer.group.name")] += delta;
  }
  void record(const MetricSeries& series, double) override {
    std::lock_guard lock(mutex_);
    ++counts_[series.name + "|" + series.label("messaging.consumer.group.name")];
  }
  std::uint64_t count(const std::string& name, const std::string& group) {
    std::lock_guard lock(mutex_);
    return counts_[name + "|" + group];
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::uint64_t> counts_;
};

// The samples Prometheus's parser read from `url`, as JSON objects; fails the test when the
// endpoint cannot be read or its text does not parse.
std::vector<boost::json::object> scrape(const std::string& url) {
  // Debian's Python: python3-prometheus-client is installed for it (another python3 may come
  // first in PATH).
  std::string command =
      std::string("/usr/bin/python3 ") + RECONSUME_PROMETHEUS_SCRAPE + " " + url + " 2>&1";
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  char buffer[4096];
  while (auto got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << command << ":\n" << out;
  std::vector<boost::json::object> samples;
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    // Sample lines only: the rest is the script's complaint, shown above when it failed.
    if (end > start && out[start] == '{') {
      samples.push_back(boost::json::parse(out.substr(start, end - start)).as_object());
    }
    start = end + 1;
  }
  return samples;
}

// The sum of the samples called `name` whose labels include `labels`.
double sampleSum(const std::vector<boost::json::object>& samples, const std::string& name,
                 const std::map<std::string, std::string>& labels) {
  double sum = 0;
  for (const auto& sample : samples) {
    if (sample.at("name").as_string() != name) continue;
    const auto& have = sample.at("labels").as_object();
    bool match = true;
    for (const auto& [key, value] : labels) {
      const auto* found = have.if_contains(key);
      match = match && found != nullptr && found->as_string() == value;
    }
    if (match) sum += sample.at("value").to_number<double>();
  }
  return sum;
}

TEST_P(Metrics, CountWhatTheConsumerDidAndServeItToPrometheus) {
  auto sink = std::make_shared<RecordingSink>();
  ClientOptions options;
  options.metricsSink = sink;
  options.metricsListen = "127.0.0.1:0";
  auto client = connectAnotherClient(options);
  ASSERT_NE(client.metricsAddress(), "");

  auto topic = uniqueTopic("metrics");
  // Acknowledgements confirmed one by one: the count of confirmed ones is read right after.
  auto consumer = client.subscribe(confirmedAcks(
      retryOptions(topic, "billing", RetryPolicy::levels(DelayLevels::parse("1s 2s")))));
  auto producer = client.createProducer(topic);
  for (const char* payload : {"a", "b", "c"}) producer.send(std::string(payload));

  auto a = receiveNow(consumer);
  auto b = receiveNow(consumer);
  auto c = receiveNow(consumer);
  consumer.acknowledge(a);
  consumer.negativeAcknowledge(b);
  auto due = now() + 1s;
  consumer.reconsumeLater(c);
  // The retry is received 300 ms after it was due (on Pulsar: whenever it comes, not before).
  letPass(1300ms);
  auto retried = embedded() ? receiveNow(consumer) : receiveAt(consumer, due);
  ASSERT_EQ(retried.data(), "c");
  consumer.deadLetter(retried, "invalid order");

  auto mine = consumer.metrics();
  MetricLabels billing = {{"messaging.consumer.group.name", "billing"}};
  EXPECT_EQ(mine.counter("messaging.client.consumed.messages", billing), 4u);
  EXPECT_EQ(
      mine.counter("messaging.client.consumed.messages", {{"messaging.destination.name", topic}}),
      3u);
  EXPECT_EQ(mine.counter("reconsume.client.acknowledged.messages"), 3u)
      << "a, and the originals of the retry and of the dead letter";
  EXPECT_EQ(mine.counter("reconsume.client.negatively_acknowledged.messages"), 1u);
  EXPECT_EQ(mine.counter("reconsume.retries", {{"reconsume.retry.level", "1"}}), 1u);
  EXPECT_EQ(mine.counter("reconsume.retries"), 1u);
  EXPECT_EQ(mine.counter("reconsume.dead_letters", {{"reconsume.dead_letter.cause", "explicit"}}),
            1u);
  EXPECT_EQ(mine.histogram("reconsume.retry.duration").count, 2u);
  auto lateness = mine.histogram("reconsume.delivery.lateness");
  ASSERT_EQ(lateness.count, 1u);
  if (embedded()) {
    EXPECT_DOUBLE_EQ(lateness.sum, 0.3);
    EXPECT_NEAR(lateness.quantile(0.5), 0.3, 0.05);
  } else {
    EXPECT_GE(lateness.sum, 0.0);
  }

  auto all = client.metrics();
  EXPECT_EQ(all.counter("messaging.client.sent.messages", {{"messaging.destination.name", topic}}),
            3u);
  EXPECT_EQ(sink->count("messaging.client.consumed.messages", "billing"), 4u);
  EXPECT_EQ(sink->count("reconsume.retries", "billing"), 1u);
  EXPECT_EQ(sink->count("reconsume.delivery.lateness", "billing"), 1u);

  auto samples = scrape("http://" + client.metricsAddress() + "/metrics");
  std::map<std::string, std::string> group = {{"messaging_consumer_group_name", "billing"}};
  EXPECT_EQ(sampleSum(samples, "messaging_client_consumed_messages_total", group), 4);
  EXPECT_EQ(sampleSum(samples, "reconsume_client_acknowledged_messages_total", group), 3);
  EXPECT_EQ(
      sampleSum(samples, "reconsume_retries_total",
                {{"messaging_consumer_group_name", "billing"}, {"reconsume_retry_level", "1"}}),
      1);
  EXPECT_EQ(sampleSum(samples, "reconsume_dead_letters_total",
                      {{"reconsume_dead_letter_cause", "explicit"}}),
            1);
  EXPECT_EQ(sampleSum(samples, "reconsume_delivery_lateness_seconds_count", group), 1);
  EXPECT_EQ(sampleSum(samples, "reconsume_delivery_lateness_seconds_bucket",
                      {{"messaging_consumer_group_name", "billing"}, {"le", "+Inf"}}),
            1);
  EXPECT_EQ(sampleSum(samples, "messaging_client_sent_messages_total",
                      {{"messaging_destination_name", topic}, {"messaging_system", "pulsar"}}),
            3);
  client.close();
}

TEST_P(Metrics, AConsumerOfOnePartitionByItsNameSeesItsOwnSeries) {
  // A partition's series name the topic and the partition apart; a consumer subscribed to the
  // partition by its name once saw none of them.
  auto topic = uniqueTopic("metrics-one-of-two");
  admin().createPartitionedTopic(topic, 2);
  auto partition = topic + "-partition-1";
  auto consumer = client().subscribe(confirmedAcks(
      retryOptions(partition, "worker", RetryPolicy::levels(DelayLevels::parse("1s")))));
  auto other = client().subscribe(confirmedAcks(retryOptions(
      topic + "-partition-0", "worker", RetryPolicy::levels(DelayLevels::parse("1s")))));
  auto producer = client().createProducer(partition);
  producer.send("a");
  producer.send("b");
  client().createProducer(topic + "-partition-0").send("elsewhere");
  consumer.acknowledge(receiveNow(consumer));
  auto b = receiveNow(consumer);
  consumer.deadLetter(b, "invalid");
  other.acknowledge(receiveNow(other));

  auto mine = consumer.metrics();
  EXPECT_EQ(mine.counter("messaging.client.consumed.messages"), 2u) << "not partition 0's";
  EXPECT_EQ(mine.counter("messaging.client.consumed.messages",
                         {{"messaging.destination.partition.id", "1"}}),
            2u);
  EXPECT_EQ(mine.counter("reconsume.client.acknowledged.messages"), 2u);
  EXPECT_EQ(mine.counter("reconsume.dead_letters"), 1u);
}

TEST_P(Metrics, AFailedSendIsCountedWithItsErrorType) {
  auto client = connectAnotherClient(ClientOptions{});
  auto topic = uniqueTopic("metrics-failed");
  ProducerOptions options;
  options.topic = topic;
  auto producer = client.createProducer(options);
  producer.send(std::string("stored"));
  producer.close();
  EXPECT_THROW(producer.send(std::string("after close")), Error);
  auto metrics = client.metrics();
  EXPECT_EQ(
      metrics.counter("messaging.client.sent.messages", {{"messaging.destination.name", topic}}),
      2u);
  EXPECT_EQ(metrics.counter("messaging.client.sent.messages", {{"error.type", "closed"}}), 1u);
  client.close();
}

// SPEC.md section 9: where a step of a retry starts the next, the two share one reading of the
// clock, so a retry's duration is its copy's send plus its original's acknowledgement. On Pulsar
// each step is timed on the real clock: readings of their own would make the retry microseconds
// longer than the two. On embedded:// the ManualClock stands still through a retry, so the sum
// holds there whatever the readings.
TEST_P(Metrics, ARetryTakesAsLongAsItsSendAndItsAcknowledgement) {
  auto client = connectAnotherClient(ClientOptions{});
  auto topic = uniqueTopic("metrics-retry-steps");
  auto consumer =
      client.subscribe(retryOptions(topic, "steps", RetryPolicy::levels(DelayLevels::parse("1h"))));
  auto producer = client.createProducer(topic);
  constexpr int kRetries = 20;
  for (int i = 0; i <= kRetries; ++i) producer.send("m" + std::to_string(i));
  const auto retryTopic = consumer.retryTopic().value();
  struct Sums {
    double retry, send, ack;
  };
  auto sums = [&] {
    auto metrics = client.metrics();
    auto sum = [&](const std::string& operation, const std::string& destination) {
      return metrics
          .histogram("messaging.client.operation.duration",
                     {{"messaging.operation.name", operation},
                      {"messaging.destination.name", destination}})
          .sum;
    };
    return Sums{metrics.histogram("reconsume.retry.duration").sum, sum("send", retryTopic),
                sum("ack", topic)};
  };
  // The first retry waits for the retry producer to be made (not counted in its send): left out.
  consumer.reconsumeLater(receiveNow(consumer));
  const auto before = sums();
  for (int i = 0; i < kRetries; ++i) consumer.reconsumeLater(receiveNow(consumer));
  const auto after = sums();

  EXPECT_EQ(client.metrics().histogram("reconsume.retry.duration").count, kRetries + 1u);
  const double retries = after.retry - before.retry;
  const double steps = (after.send - before.send) + (after.ack - before.ack);
  EXPECT_NEAR(retries, steps, 1e-9) << "retries " << retries << " s, send + ack " << steps << " s";
  if (!embedded()) EXPECT_GT(retries, 0.0);
  client.close();
}

INSTANTIATE_TEST_SUITE_P(Backends, Metrics, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
