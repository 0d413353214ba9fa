#include "integration/fault_run.hpp"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "integration/fault_run_broker.hpp"
#include "integration/fault_run_fate.hpp"
#include "integration/fault_run_outcomes.hpp"
#include "integration/fault_run_workers.hpp"
#include "integration/pulsar_environment.hpp"

namespace reconsume::integration::faultrun {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kSubscription = "fault-run";
constexpr auto kSettleTime = 120s;          // after the last final outcome, for backlogs to empty
constexpr auto kWaitForOtherTests = 1800s;  // before a kill
constexpr int kPrintedLogLines = 20;
constexpr auto kProgressEvery = 10s;
// The followers of the done and dead-letter topics only show progress; the count that decides is
// read afresh at the end (readOutcomes). Once the handler has finished every id, a follower that
// has shown nothing new for this long is not waited for until the deadline: after a `kill -9` the
// standalone's bookie now and then fails writes for a while ("Not enough non-faulty bookies"), and
// readers that waited on such topics have been seen to get nothing more for 440 s, until the run
// gave up on them, while new readers on the same broker got everything (a clean-clone run of the
// test command, 2026-11-26).
constexpr auto kFollowerStall = 60s;
// With no new final outcome for this long, the run asks the broker's health.
constexpr auto kStall = 60s;
constexpr int kMaxHealthRestarts = 2;

int fromEnvironment(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::stoi(value) : fallback;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool waitUntil(const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(100ms);  // polling progress made by other threads
  }
  return true;
}

ClientOptions clientOptions() {
  ClientOptions options;
  // Also the timeout of the library's transactions: short, so that a transaction left open by the
  // kill is aborted soon and its message delivered again.
  options.operationTimeout = 20s;
  auto printed = std::make_shared<std::atomic<int>>(0);
  options.logger = [printed](LogLevel level, std::string_view text) {
    static const bool all = std::getenv("RECONSUME_FAULT_RUN_LOG_ALL") != nullptr;
    if (all) {
      std::fprintf(stderr, "client[%d]: %.*s\n", static_cast<int>(level),
                   static_cast<int>(text.size()), text.data());
      return;
    }
    if (level < LogLevel::warn || (*printed)++ >= kPrintedLogLines) return;
    std::fprintf(stderr, "client: %.*s\n", static_cast<int>(text.size()), text.data());
  };
  return options;
}

ConsumerOptions consumerOptions(const std::string& topic, Mode mode) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = kSubscription;
  options.subscriptionType = SubscriptionType::shared;
  options.initialPosition = InitialPosition::earliest;
  options.retry = RetryPolicy::levels(DelayLevels::parse(kLevels), kMaxRetries);
  options.transactionalRetry = mode == Mode::transactional;
  options.negativeAckRedeliveryDelay = 1s;
  return options;
}

Producer producerFor(Client& client, const std::string& topic, std::chrono::milliseconds timeout,
                     bool batching = true) {
  ProducerOptions options;
  options.topic = topic;
  options.sendTimeout = timeout;
  options.batching.enabled = batching;
  return client.createProducer(options);
}

// Publishes messages 0..count-1 (asynchronously) and waits until the broker has them all.
void publishAll(Producer& producer, int count) {
  std::mutex mutex;
  std::condition_variable finished;
  int completed = 0, failed = 0;
  std::string firstError;
  for (int n = 0; n < count; ++n) {
    OutgoingMessage m;
    m.payload = "message-" + std::to_string(n);
    m.properties = {{"n", std::to_string(n)}};
    producer.asyncSend(std::move(m), [&](boost::system::error_code ec, MessageId) {
      std::lock_guard lock(mutex);
      if (ec && failed++ == 0) firstError = ec.message();
      if (++completed == count) finished.notify_all();
    });
  }
  std::unique_lock lock(mutex);
  finished.wait(lock, [&] { return completed == count; });
  if (failed > 0) {
    throw std::runtime_error(std::to_string(failed) + " of the " + std::to_string(count) +
                             " input messages were not published: " + firstError);
  }
}

std::int64_t backlogOf(Admin& admin, const std::string& topic) {
  try {
    return admin.backlog(topic, kSubscription);
  } catch (const Error& e) {
    std::fprintf(stderr, "[ fault-run ] backlog of %s: %s\n", topic.c_str(), e.what());
    return -1;
  }
}

// What the run's phases share.
struct Run {
  const Config& config;
  Admin& admin;
  const OutcomeWatch& watch;
  const Deliveries& deliveries;
  std::string inputTopic, retryTopic;
  Clock::time_point started;
  Figures& figures;
  long progress{-1};  // final outcomes (the handler's and the topics') when last looked at
  Clock::time_point progressAt{};

  std::int64_t backlogs() {
    auto input = backlogOf(admin, inputTopic), retry = backlogOf(admin, retryTopic);
    return input < 0 || retry < 0 ? -1 : input + retry;
  }
  // `enough`, when given, replaces the count as the condition to stop at.
  bool waitForOutcomes(int count, Clock::time_point deadline, bool handled = false,
                       const std::function<bool()>& enough = nullptr);
  void watchProgress();
  void killAlongTheWay(Workers& workers);
  void handleAll(Handler& handler);
};

// Prints the broker's log, then restarts it; counts the restart and its outage.
void restartUnhealthy(const Target::Care& care, Figures& figures, const char* why) {
  care.printLog(why);
  ++figures.healthRestarts;
  std::fprintf(stderr, "[ fault-run ] restarting the broker (health restart %d)\n",
               figures.healthRestarts);
  figures.outageSeconds += care.restart();
}

// After kStall without a new final outcome (by the handler or on the topics) while ids are
// unfinished — deliveries do not count: prefetched messages keep coming, their calls failing one
// operation timeout after another, while the broker answers nothing — a broker that fails its
// health check is restarted (Target::care); one that passes it is only mentioned, since the stall
// is then the client's.
void Run::watchProgress() {
  long now = deliveries.finishedIds() + watch.finalOutcomes();
  if (now != progress || deliveries.finishedIds() >= config.messages) {
    progress = now;
    progressAt = Clock::now();
    return;
  }
  if (Clock::now() - progressAt < kStall || !config.target.care) return;
  progressAt = Clock::now();
  const auto& care = *config.target.care;
  if (care.healthy()) {
    std::fprintf(stderr,
                 "[ fault-run ] no new final outcome for %lld s, %d ids unfinished; "
                 "the broker passes its health check\n",
                 static_cast<long long>(kStall.count()),
                 config.messages - deliveries.finishedIds());
    return;
  }
  const char* why = "no progress and the broker fails its health check";
  if (figures.healthRestarts >= kMaxHealthRestarts) return care.printLog(why);
  restartUnhealthy(care, figures, why);
  progressAt = Clock::now();
}

// Until `count` messages have a final outcome (on the topics, or by the handler's own count when
// `handled`); says how far it got every 10 s.
bool Run::waitForOutcomes(int count, Clock::time_point deadline, bool handled,
                          const std::function<bool()>& enough) {
  auto report = Clock::now() + kProgressEvery;
  return waitUntil(
      [&] {
        if (Clock::now() >= report) {
          report = Clock::now() + kProgressEvery;
          std::fprintf(stderr,
                       "[ fault-run ] %.0f s: %d of %d messages have a final outcome on the "
                       "topics, %d by the handler's calls\n",
                       secondsSince(started), watch.finalOutcomes(), config.messages,
                       deliveries.finishedIds());
        }
        watchProgress();
        if (enough) return enough();
        return (handled ? deliveries.finishedIds() : watch.finalOutcomes()) >= count;
      },
      deadline);
}

// Kills the broker each time another 1/(kills+1) of the messages has a final outcome, as the
// handler counts them (the topics' readers may lag behind, and the kill must come mid-run).
void Run::killAlongTheWay(Workers& workers) {
  auto deadline = started + config.deadline;
  for (int k = 1; k <= config.kills; ++k) {
    int threshold = static_cast<int>(static_cast<long>(config.messages) * k / (config.kills + 1));
    if (!waitForOutcomes(threshold, deadline, true)) {
      throw std::runtime_error("only " + std::to_string(deliveries.finishedIds()) +
                               " final outcomes before the deadline, before kill " +
                               std::to_string(k));
    }
    if (config.target.shared && !otherBrokerUsers().empty()) {
      workers.pause();  // the kill stays in the middle of the run
      bool alone = waitForOtherTests(kWaitForOtherTests);
      workers.resume();
      if (!alone) throw std::runtime_error("another test kept using the broker: not killed");
    }
    auto before = backlogs();
    std::fprintf(stderr,
                 "[ fault-run ] kill %d of %d after %d final outcomes by the handler, %d on the "
                 "topics (backlog %lld)\n",
                 k, config.kills, deliveries.finishedIds(), watch.finalOutcomes(),
                 static_cast<long long>(before));
    figures.outageSeconds += config.target.killAndRestart();
    auto after = backlogs();
    // Right after the restart: what the broker's cursors had persisted (acknowledgements made in
    // a transaction are restored later, from the transaction's pending-ack log).
    std::fprintf(stderr, "[ fault-run ] broker back after kill %d: backlog %lld\n", k,
                 static_cast<long long>(after));
  }
}

// Handles the messages until each has a final outcome and nothing is left on the subscription.
void Run::handleAll(Handler& handler) {
  Workers workers(handler, config.workers);
  auto deadline = started + config.deadline;
  killAlongTheWay(workers);
  // Until every id has a final outcome on the topics, or the handler has finished every id and
  // the followers have stalled (kFollowerStall; readOutcomes counts anew).
  int shown = -1;
  auto lastProgress = Clock::now();
  auto done = [&] {
    if (watch.finalOutcomes() >= config.messages) return true;
    if (watch.finalOutcomes() != shown) {
      shown = watch.finalOutcomes();
      lastProgress = Clock::now();
      return false;
    }
    return deliveries.finishedIds() >= config.messages &&
           Clock::now() - lastProgress >= kFollowerStall;
  };
  if (!waitForOutcomes(config.messages, deadline, false, done)) {
    std::fprintf(stderr, "[ fault-run ] deadline passed with %d of %d final outcomes\n",
                 watch.finalOutcomes(), config.messages);
  } else if (watch.finalOutcomes() < config.messages) {
    std::fprintf(stderr,
                 "[ fault-run ] the handler finished all %d ids; the topics' followers showed "
                 "%d and nothing new for %lld s: the final count reads the topics anew\n",
                 config.messages, watch.finalOutcomes(),
                 static_cast<long long>(kFollowerStall.count()));
  }
  // Settled: nothing unacknowledged (or pending in a transaction) on the input and retry topics.
  figures.settled = waitUntil(
      [&] {
        figures.inputBacklog = backlogOf(admin, inputTopic);
        figures.retryBacklog = backlogOf(admin, retryTopic);
        return figures.inputBacklog == 0 && figures.retryBacklog == 0;
      },
      std::min(deadline, Clock::now()) + kSettleTime);
  figures.wallSeconds = secondsSince(started);
  workers.stop();
}

std::string joined(const std::map<std::string, long>& counts) {
  if (counts.empty()) return "none";
  std::string text;
  for (const auto& [name, count] : counts) {
    text += (text.empty() ? "" : ",") + name + ":" + std::to_string(count);
  }
  return text;
}

}  // namespace

const char* nameOf(Mode mode) {
  return mode == Mode::transactional ? "transactional" : "at-least-once";
}

Target Target::standalone() {
  Target target;
  target.serviceUrl = pulsar().serviceUrl;
  target.adminUrl = pulsar().adminUrl;
  target.adminOptions = pulsar().adminOptions();
  target.killAndRestart = [] { return faultrun::killAndRestart(); };
  target.care = Target::Care{brokerHealthy, restartBroker, printBrokerLog};
  return target;
}

Config Config::fromEnvironment(Mode mode) {
  Config config;
  config.mode = mode;
  config.messages = faultrun::fromEnvironment("RECONSUME_FAULT_RUN_MESSAGES", 10000);
  config.kills = faultrun::fromEnvironment("RECONSUME_FAULT_RUN_KILLS", 1);
  config.deadline = std::chrono::seconds(faultrun::fromEnvironment(
      "RECONSUME_FAULT_RUN_DEADLINE", 180 + config.messages / 50 + 120 * config.kills));
  return config;
}

std::string Figures::line() const {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << "[ fault-run ] mode=" << nameOf(mode) << " messages=" << messages
      << " kills=" << kills << " processed=" << processed << " dead-lettered=" << deadLettered
      << " lost=" << lost << " duplicates=" << duplicates << " misplaced=" << misplaced
      << " backlog=" << inputBacklog << "/" << retryBacklog << " deliveries=" << deliveries
      << " repeated=" << repeated << " failed-calls=" << joined(failedCalls)
      << " wall=" << wallSeconds << "s outage=" << outageSeconds << "s";
  if (healthRestarts > 0) out << " health-restarts=" << healthRestarts;
  return out.str();
}

Figures run(const Config& config) {
  Figures figures;
  figures.mode = config.mode;
  figures.messages = config.messages;
  figures.kills = config.kills;
  auto client = Client::connect(config.target.serviceUrl, clientOptions());
  auto admin = Admin::connect(config.target.adminUrl, config.target.adminOptions);
  auto topic = uniqueTopic(config.mode == Mode::transactional ? "faultrun-txn" : "faultrun-alo");
  auto doneTopic = topic + "-done";
  auto consumer = client.subscribe(consumerOptions(topic, config.mode));
  auto done = producerFor(client, doneTopic, 30s);
  // Waits for the broker, however long. The transactional mode's input is one entry per message,
  // as SPEC.md section 1 advises: a broker killed mid-run has been seen to deliver a message of a
  // batch entry again and accept its acknowledgement in a second transaction (418 duplicates in
  // one run of 10,000 with batched input).
  auto input = producerFor(client, topic, 0ms, config.mode != Mode::transactional);
  if (config.target.prepare) config.target.prepare(topic);
  FailedCalls failures;
  Deliveries deliveries(config.messages);
  {
    OutcomeWatch watch(client, doneTopic, *consumer.deadLetterTopic(), config.messages);
    auto started = Clock::now();
    publishAll(input, config.messages);
    std::fprintf(stderr, "[ fault-run ] %s: %d messages published in %.1f s\n", nameOf(config.mode),
                 config.messages, secondsSince(started));
    Handler handler{client, consumer, done, config.mode, failures, deliveries};
    Run{config, admin, watch, deliveries, topic, *consumer.retryTopic(), started, figures}
        .handleAll(handler);
  }
  consumer.close();
  Outcomes outcomes(config.messages);
  try {
    outcomes = readOutcomes(client, doneTopic, *consumer.deadLetterTopic(), config.messages);
  } catch (const Error&) {
    // What was stored survives a restart; a broker that stopped answering gets one.
    const auto& care = config.target.care;
    if (!care || care->healthy()) throw;
    restartUnhealthy(*care, figures,
                     "reading the outcomes failed and the broker fails its health check");
    outcomes = readOutcomes(client, doneTopic, *consumer.deadLetterTopic(), config.messages);
  }
  account(outcomes, figures);
  figures.deliveries = deliveries.total();
  figures.repeated = deliveries.repeated();
  figures.failedCalls = failures.byErrc();
  figures.failedByCall = failures.byCall();
  client.close();
  return figures;
}

}  // namespace reconsume::integration::faultrun
