// `reconsume demo`: orders flow through a consumer whose handler fails now and then, and throws
// what it caught to reconsumeLater. Routing by error sorts the failures into two categories:
// "transient" goes back through the retry topic, one level further each time; "invalid" goes to
// the dead-letter topic at once. Those that fail at every level land there too. A live line shows
// progress; a summary shows what happened per category and at each level.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include "commands.hpp"
#include "connection_settings.hpp"
#include "reconsume/reconsume.hpp"
#include "terminal.hpp"
#include "timeouts.hpp"

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;

struct DemoOptions {
  ConnectionFlags connection;  // --url, credentials, TLS, log level
  int orders = 1000;
  std::string levels = "100ms 200ms 500ms 1s 2s";
  double transientRate = 0.30;
  double permanentRate = 0.02;
  int workers = 4;
  std::uint64_t seed = 42;
  std::string timeout = "300s";  // the whole run; connecting waits at most this (or 10 s)
};

// A number in [0, 1) decided by (seed, order, attempt): the same run fails the same way.
double draw(std::uint64_t seed, int order, int attempt) {
  std::uint64_t x =
      seed ^ (static_cast<std::uint64_t>(order) << 20) ^ static_cast<std::uint64_t>(attempt);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
}

const char* const kTransientReasons[] = {
    "inventory service timed out", "payment gateway answered 503", "warehouse database deadlock"};
const char* const kPermanentReasons[] = {"invalid order: negative amount",
                                         "invalid order: unknown currency 'XXX'"};

// What the handler throws; the consumer's error rules map them to the two categories.
struct TransientFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InvalidOrder : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
constexpr const char* kTransient = "transient";
constexpr const char* kInvalid = "invalid";

struct Tally {
  std::atomic<int> processed{0};
  std::atomic<int> deadLettered{0};
  std::vector<std::atomic<int>> scheduledAtLevel;  // retries scheduled per level (1-based)
  std::vector<std::atomic<int>> backFromLevel;     // retries that came back per level
  explicit Tally(std::size_t levels) : scheduledAtLevel(levels + 1), backFromLevel(levels + 1) {}
  int inRetry() const {
    int waiting = 0;
    for (std::size_t l = 1; l < scheduledAtLevel.size(); ++l) {
      waiting += scheduledAtLevel[l] - backFromLevel[l];
    }
    return waiting;
  }
};

int intProperty(const Message& message, const char* key) {
  auto value = message.property(key);
  try {
    return value ? std::stoi(*value) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// The application's work on one order: throws when it fails.
void process(int order, int attempt, const DemoOptions& options) {
  if (draw(options.seed, order, -1) < options.permanentRate) {
    throw InvalidOrder(kPermanentReasons[order % 2]);
  }
  if (draw(options.seed, order, attempt) < options.transientRate) {
    throw TransientFailure(kTransientReasons[(order + attempt) % 3]);
  }
}

// What a handler looks like: process, acknowledge, or hand what it caught to reconsumeLater.
void handle(Consumer& consumer, const Message& message, const DemoOptions& options,
            const DelayLevels& table, Tally& tally) {
  int order = intProperty(message, "order-id");
  int attempt = intProperty(message, "RECONSUMETIMES");
  if (attempt > 0) tally.backFromLevel[std::min<std::size_t>(attempt, table.size())]++;
  try {
    process(order, attempt, options);
  } catch (const InvalidOrder&) {
    consumer.reconsumeLater(message, std::current_exception());  // "invalid": dead-lettered
    tally.deadLettered++;
    return;
  } catch (const TransientFailure&) {
    consumer.reconsumeLater(message, std::current_exception());  // "transient": next level
    int next = attempt + 1;
    if (next > static_cast<int>(table.size())) {
      tally.deadLettered++;  // the category's maxRetries (the table's size) is used up
    } else {
      tally.scheduledAtLevel[next]++;
    }
    return;
  }
  consumer.acknowledge(message);
  tally.processed++;
}

std::string progressText(const Tally& tally, int orders,
                         std::chrono::steady_clock::time_point start) {
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  std::string text = "[" + humanDuration(elapsed) + "] processed " +
                     std::to_string(tally.processed.load()) + "/" + std::to_string(orders) +
                     "  waiting in retry " + std::to_string(tally.inRetry()) + " (";
  for (std::size_t l = 1; l < tally.scheduledAtLevel.size(); ++l) {
    if (l > 1) text += " ";
    text += "L" + std::to_string(l) + ":" +
            std::to_string(tally.scheduledAtLevel[l] - tally.backFromLevel[l]);
  }
  return text + ")  dead letters " + std::to_string(tally.deadLettered.load());
}

// What the dead-letter topic really holds.
struct DeadLetters {
  int total = 0;
  std::map<std::string, int> byCategory;
  std::map<std::tuple<std::string, std::string, std::string>, int> byReason;  // category, cause
};

DeadLetters readDeadLetters(Client& client, const std::string& topic) {
  DeadLetters dead;
  auto reader = client.createReader(topic);
  while (reader.hasMessageAvailable()) {
    auto message = reader.readNext(10s);
    if (!message) break;
    auto category = message->property("RECONSUME_CATEGORY").value_or("-");
    ++dead.total;
    dead.byCategory[category]++;
    dead.byReason[{category, message->property("DEAD_LETTER_CAUSE").value_or("unknown"),
                   message->property("RECONSUME_REASON").value_or("")}]++;
  }
  reader.close();
  return dead;
}

void printSummary(Client& client, const std::string& deadLetterTopic, const DelayLevels& table,
                  const Tally& tally, int orders, std::chrono::milliseconds took) {
  auto dead = readDeadLetters(client, deadLetterTopic);
  int retries = 0;
  for (const auto& scheduled : tally.scheduledAtLevel) retries += scheduled;
  std::printf("\n%s\n", bold("Summary").c_str());
  std::printf("  orders             %d in %s\n", orders, humanDuration(took).c_str());
  std::printf("  processed          %s\n", green(std::to_string(tally.processed.load())).c_str());
  std::printf("  by category        retries  dead letters\n");
  std::printf("    %-16s %7d  %12d\n", kTransient, retries, dead.byCategory[kTransient]);
  std::printf("    %-16s %7d  %12d\n", kInvalid, 0, dead.byCategory[kInvalid]);
  std::printf("  retries per level (%s)\n", kTransient);
  int most = 1;
  for (std::size_t l = 1; l < tally.scheduledAtLevel.size(); ++l) {
    most = std::max(most, tally.scheduledAtLevel[l].load());
  }
  for (std::size_t l = 1; l < tally.scheduledAtLevel.size(); ++l) {
    int count = tally.scheduledAtLevel[l];
    std::printf("    level %zu %-7s %5d %s\n", l,
                ("(" + humanDuration(table.at(static_cast<int>(l))) + ")").c_str(), count,
                bar(count, most, 30).c_str());
  }
  std::printf("  dead-lettered      %s  (in %s)\n", red(std::to_string(dead.total)).c_str(),
              deadLetterTopic.c_str());
  for (const auto& [key, count] : dead.byReason) {
    const auto& [category, cause, reason] = key;
    std::printf("    %5d  %-9s %-9s %s\n", count, category.c_str(), cause.c_str(), reason.c_str());
  }
  // From the client's own histograms (metrics.hpp), as `reconsume perf` and a Prometheus scrape
  // would see them.
  auto metrics = client.metrics();
  std::printf("  latency (ms)             p50      p99    p99.9\n");
  auto row = [](const char* what, const HistogramData& h) {
    std::printf("    %-18s %8.2f %8.2f %8.2f\n", what, h.quantile(0.5) * 1e3,
                h.quantile(0.99) * 1e3, h.quantile(0.999) * 1e3);
  };
  row("reconsumeLater", metrics.histogram("reconsume.retry.duration"));
  row("retry lateness", metrics.histogram("reconsume.delivery.lateness"));
}

int runDemo(const DemoOptions& options) {
  auto table = DelayLevels::parse(options.levels);
  auto timeout = parseTimeout(options.timeout, "--timeout");
  auto settings = resolveConnection(options.connection, processEnvironment(), "embedded://demo",
                                    /*urlFromEnvironment=*/false, /*withAdminUrl=*/false);
  printWarnings(settings, std::cerr);
  ClientOptions clientOptions = clientOptionsFor(settings);
  boundClientBy(clientOptions, timeout);
  auto client = Client::connect(settings.url, clientOptions);
  auto topic =
      "persistent://public/default/demo-orders-" +
      std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1'000'000'000);

  ConsumerOptions consumerOptions;
  consumerOptions.topics = {topic};
  consumerOptions.subscription = "fulfilment";
  consumerOptions.initialPosition = InitialPosition::earliest;
  consumerOptions.retry = RetryPolicy::levels(table);  // for anything no rule names
  consumerOptions.categories[kTransient].retry = RetryPolicy::levels(table);
  consumerOptions.categories[kInvalid].deadLetter = true;
  consumerOptions.errorRules.on<TransientFailure>(kTransient).on<InvalidOrder>(kInvalid);
  auto consumer = client.subscribe(consumerOptions);

  std::printf(
      "%s %d orders on %s, retry levels \"%s\", %.0f%% transient and %.0f%% permanent "
      "failures\n",
      bold("reconsume demo:").c_str(), options.orders, settings.url.c_str(),
      table.toString().c_str(), options.transientRate * 100, options.permanentRate * 100);
  std::printf("  topic %s\n  retry %s\n  dead letters %s\n", topic.c_str(),
              consumer.retryTopic()->c_str(), consumer.deadLetterTopic()->c_str());

  auto producer = client.createProducer(topic);
  for (int order = 1; order <= options.orders; ++order) {
    OutgoingMessage message;
    message.payload = R"({"order":)" + std::to_string(order) + R"(,"amount":)" +
                      std::to_string(order * 7 % 500 + 1) + "}";
    message.key = "customer-" + std::to_string(order % 97);
    message.properties = {{"order-id", std::to_string(order)}};
    producer.send(message);
  }

  Tally tally(table.size());
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + timeout;
  std::atomic<bool> stop{false};
  std::mutex errorMutex;
  std::string firstError;
  std::vector<std::thread> workers;
  for (int w = 0; w < options.workers; ++w) {
    workers.emplace_back([&] {
      while (!stop) {
        try {
          if (auto message = consumer.receive(100ms)) {
            handle(consumer, *message, options, table, tally);
          }
        } catch (const std::exception& e) {
          std::lock_guard lock(errorMutex);
          if (firstError.empty()) firstError = e.what();
          stop = true;
        }
      }
    });
  }

  ProgressLine progress;
  while (tally.processed + tally.deadLettered < options.orders && !stop &&
         std::chrono::steady_clock::now() < deadline) {
    progress.update(progressText(tally, options.orders, start));
    std::this_thread::sleep_for(100ms);  // the display's refresh rate, not synchronisation
  }
  stop = true;
  for (auto& worker : workers) worker.join();
  progress.update(progressText(tally, options.orders, start));
  progress.finish();
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);

  if (!firstError.empty()) {
    std::fprintf(stderr, "%s %s\n", red("error:", Stream::err).c_str(), firstError.c_str());
    return 1;
  }
  printSummary(client, *consumer.deadLetterTopic(), table, tally, options.orders, took);
  bool complete = tally.processed + tally.deadLettered == options.orders;
  if (!complete) {
    std::fprintf(stderr, "%s not every order was accounted for within %s\n",
                 red("error:", Stream::err).c_str(), humanDuration(timeout).c_str());
  }
  client.close();
  return complete ? 0 : 1;
}

}  // namespace

void addDemoCommand(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<DemoOptions>();
  auto* demo = app.add_subcommand("demo", "Run orders through retries and dead letters");
  addConnectionFlags(*demo, options->connection, "embedded://demo", /*withAdminUrl=*/false);
  demo->add_option("--orders", options->orders, "How many orders")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000'000));
  demo->add_option("--levels", options->levels, "Delay-level table")->capture_default_str();
  demo->add_option("--transient-rate", options->transientRate,
                   "Share of attempts failing transiently")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  demo->add_option("--permanent-rate", options->permanentRate,
                   "Share of orders that are invalid (dead-lettered at once)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  demo->add_option("--workers", options->workers, "Handler threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  demo->add_option("--seed", options->seed, "Seed of the failures")->capture_default_str();
  demo->add_option("--timeout", options->timeout,
                   "Give up after this long (e.g. 90s, 5m; a bare number is seconds); connecting "
                   "waits at most this, and at most 10s")
      ->capture_default_str();
  demo->footer(kExitCodesFooter);
  demo->callback(
      [options, &exitCode] { exitCode = runReporting([&] { return runDemo(*options); }); });
}

}  // namespace reconsume::tools
