// `reconsume perf`: how fast this client publishes, consumes-and-acknowledges, and reconsumes
// against a service URL, and what it costs the client. Three phases, each timed on its own:
//
//   publish         N messages of S bytes through one producer, `--window` sends in flight,
//                   all of one shared buffer (OutgoingMessage::sharedPayload, not copied: what
//                   the Java harness does with its one byte[]);
//   consume + ack   the same N received by one consumer and acknowledged (async; grouped for
//                   --ack-group-time, 100 ms by default without receipts, as the Java client's
//                   defaults acknowledge; 0: each confirmed, this library's default);
//   reconsumeLater  N fresh messages received and sent to the retry topic (async, confirmed:
//                   the retry message stored and the original acknowledged). The delay is one
//                   hour, so nothing comes back while it runs. --transactional: in the
//                   transactional mode (one transaction per message, SPEC.md section 1).
//
// --batching on (the default, as for any producer) batches the publishes and the retry copies
// (ProducerOptions::batching, ConsumerOptions::retryBatchingWindow); off writes one entry per
// message, as the Java client does for retries.
//
// For each phase: messages per second (wall clock), the process's CPU time (getrusage: user +
// system, every thread — the client's I/O threads included), of which how much in the kernel
// (system time: mostly the sockets' copies and, on loopback, the broker side's TCP receive), and
// its peak resident set size at the end of the phase (ru_maxrss, a high-water mark). On Pulsar,
// also how many entries the broker read back from its bookies during the phase rather than from its
// cache (broker_reads.hpp; the broker's Prometheus endpoint under --admin-url): a consume phase
// that lags its publishes by more than managedLedgerCacheEvictionTimeThresholdMillis (1 s by
// default) reads from the bookies, and so do batched entries of larger runs whatever that setting
// (README, "Measured").
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "broker_reads.hpp"
#include "commands.hpp"
#include "connection_settings.hpp"
#include "in_flight.hpp"
#include "perf_report.hpp"
#include "reconsume/reconsume.hpp"
#include "terminal.hpp"
#include "timeouts.hpp"

namespace reconsume::tools {
namespace {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;

struct PerfOptions {
  ConnectionFlags connection;  // --url, credentials, TLS, log level
  int messages = 10'000;
  int size = 1024;
  int window = 1000;
  int ioThreads = 1;
  bool transactional = false;
  bool batching = true;
  int ackGroupMs = 100;  // ConsumerOptions::acknowledgmentGroupTime of the consume + ack phase
  bool json = false;
  std::string timeout = "30s";  // connecting, and a wait for the next message
};

// Whole microseconds, so that a phase's system time, subtracted and converted as its CPU time
// is, never comes out above it.
struct Usage {
  std::int64_t userMicros = 0;
  std::int64_t systemMicros = 0;
  long peakRssKiB = 0;
};

Usage usageNow() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto micros = [](const timeval& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000 + t.tv_usec;
  };
  return {micros(usage.ru_utime), micros(usage.ru_stime), usage.ru_maxrss};
}

// What a phase's operations came to. A phase stops starting operations at its first failure
// (SPEC.md section 8, `perf`): `started` may be fewer than `requested`.
struct Outcome {
  int requested = 0;
  int started = 0;
  int failed = 0;
  std::optional<boost::system::error_code> first;  // the first failure's code, if any
  std::string stalled;  // why no more operations started without a failure (no next message)

  // The phase's "failed" figure: failed, or never started.
  int unsuccessful() const { return requested - started + failed; }
};

// Runs `work` (which returns its Outcome, into `outcome`) and measures it; its latencies are those
// of histogram `latencyMetric` with `labels`, measured over this phase alone. The broker's counter
// is read outside the measured time: the scrape's own CPU is not the phase's.
template <typename Work>
PerfPhase measure(const std::string& name, Client& client, BrokerReads& broker,
                  const char* latencyOf, const char* latencyMetric, const MetricLabels& labels,
                  Outcome& outcome, Work work) {
  auto readBefore = broker.read();
  auto before = usageNow();
  auto start = Steady::now();
  outcome = work();
  const int failures = outcome.unsuccessful();
  auto seconds = std::chrono::duration<double>(Steady::now() - start).count();
  auto after = usageNow();
  auto readAfter = readBefore ? broker.read() : std::nullopt;
  const auto system = after.systemMicros - before.systemMicros;
  const auto cpu = after.userMicros - before.userMicros + system;
  // The rate counts what completed: a stopped phase's failures and unstarted operations do not.
  PerfPhase phase{name,
                  outcome.started - outcome.failed,
                  seconds,
                  static_cast<double>(cpu) / 1e6,
                  static_cast<double>(system) / 1e6,
                  after.peakRssKiB,
                  failures,
                  latencyOf,
                  {},
                  std::nullopt};
  phase.latency = client.metrics().histogram(latencyMetric, labels);
  if (readBefore && readAfter) phase.bookieEntryReads = *readAfter - *readBefore;
  return phase;
}

// Room for one more operation, unless an operation failed meanwhile.
bool acquireUnlessFailed(InFlight& inFlight) {
  inFlight.acquire();
  if (!inFlight.failed()) return true;
  inFlight.release(false);  // the permit back, unused
  return false;
}

Outcome finished(int requested, int started, const InFlight& inFlight) {
  return {requested, started, inFlight.failures(), inFlight.firstFailure()};
}

Outcome publish(Producer& producer, int messages, const std::shared_ptr<const std::string>& payload,
                int window) {
  auto inFlight = std::make_shared<InFlight>(window);
  int started = 0;
  for (; started < messages && !inFlight->failed(); ++started) {
    // A failure may come while waiting for room: nothing more starts after it (a send started
    // then would wait out a whole send timeout of its own before the phase could end).
    if (!acquireUnlessFailed(*inFlight)) break;
    OutgoingMessage message;
    message.sharedPayload = payload;
    producer.asyncSend(std::move(message), [inFlight](boost::system::error_code ec, MessageId) {
      inFlight->release(ec);
    });
  }
  inFlight->waitForAll();
  return finished(messages, started, *inFlight);
}

// Receives `messages` and hands each to `act`, which completes through the InFlight.
template <typename Act>
Outcome receiveAll(Consumer& consumer, int messages, int window, std::chrono::milliseconds timeout,
                   Act act) {
  auto inFlight = std::make_shared<InFlight>(window);
  int started = 0;
  std::string stalled;
  for (; started < messages && !inFlight->failed(); ++started) {
    auto message = consumer.receive(timeout);
    if (!message) {
      stalled = "received " + std::to_string(started) + " of " + std::to_string(messages) +
                " messages, then none for " + humanDuration(timeout);
      break;
    }
    if (!acquireUnlessFailed(*inFlight)) break;  // the message comes back: it is not settled
    act(*message, [inFlight](boost::system::error_code ec) { inFlight->release(ec); });
  }
  inFlight->waitForAll();
  auto outcome = finished(messages, started, *inFlight);
  outcome.stalled = std::move(stalled);
  return outcome;
}

// False, after saying so on stderr (errorJson's line when `json`), when `what` (a phase, or the
// publishing before one) did not complete every operation: the run stops there.
bool completed(const char* what, const char* operations, const Outcome& outcome, bool json) {
  if (outcome.unsuccessful() == 0) return true;
  std::string text = std::string(what) + " stopped: ";
  std::error_code code = make_error_code(errc::timeout);  // the messages stopped coming
  if (outcome.failed > 0) {
    text += std::to_string(outcome.failed) + " of " + std::to_string(outcome.started) + " " +
            operations + " failed";
    if (outcome.first) {
      code = *outcome.first;
      text += " (the first: " + code.message() + ")";
    }
  } else {
    text += outcome.stalled;  // nothing failed: the messages stopped coming (receiveAll)
  }
  text += "; " + std::to_string(outcome.requested - outcome.started) +
          " not started, the later phases skipped";
  if (json) {
    std::fprintf(stderr, "%s\n", errorJson(text, code, 1).c_str());
  } else {
    std::fprintf(stderr, "%s %s\n", red("error:", Stream::err).c_str(), text.c_str());
  }
  return false;
}

std::string topicName(const char* phase) {
  return "persistent://public/default/reconsume-perf-" + std::string(phase) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count() %
                        1'000'000'000);
}

int runPerf(const PerfOptions& options) {
  auto timeout = parseTimeout(options.timeout, "--timeout");
  auto settings = resolveConnection(options.connection, processEnvironment(), "embedded://perf",
                                    /*urlFromEnvironment=*/false, /*withAdminUrl=*/true);
  printWarnings(settings, std::cerr);
  // Machine output: the library's warnings would be noise on stderr; -v or --log-level still ask.
  if (options.json) quietenForJson(options.connection, settings);
  ClientOptions clientOptions = clientOptionsFor(settings);
  clientOptions.ioThreads = options.ioThreads;
  boundClientBy(clientOptions, timeout);
  auto client = Client::connect(settings.url, clientOptions);
  BrokerReads broker(settings, timeout);
  const auto payload =
      std::make_shared<const std::string>(static_cast<std::size_t>(options.size), 'x');
  if (!options.json) {
    std::printf("%s %d messages of %d bytes on %s (window %d, %d I/O thread%s, batching %s)\n",
                bold("reconsume perf:").c_str(), options.messages, options.size,
                settings.url.c_str(), options.window, options.ioThreads,
                options.ioThreads == 1 ? "" : "s", options.batching ? "on" : "off");
  }
  std::vector<PerfPhase> phases;
  const char* operationDuration = "messaging.client.operation.duration";
  // The phases run in turn until one does not complete every operation (completed()).
  bool complete = true;
  {
    auto topic = topicName("plain");
    ConsumerOptions consumerOptions;
    consumerOptions.topics = {topic};
    consumerOptions.subscription = "perf";
    consumerOptions.initialPosition = InitialPosition::earliest;
    consumerOptions.acknowledgmentGroupTime = std::chrono::milliseconds(options.ackGroupMs);
    auto consumer = client.subscribe(consumerOptions);
    ProducerOptions producerOptions;
    producerOptions.topic = topic;
    producerOptions.maxPendingMessages = static_cast<std::size_t>(options.window);
    producerOptions.batching.enabled = options.batching;
    auto producer = client.createProducer(producerOptions);
    MetricLabels sends = {{"messaging.operation.name", "send"},
                          {"messaging.destination.name", topic}};
    Outcome outcome;
    phases.push_back(
        measure("publish", client, broker, "send", operationDuration, sends, outcome,
                [&] { return publish(producer, options.messages, payload, options.window); }));
    complete = completed("publish", "sends", outcome, options.json);
    if (complete) {
      MetricLabels acks = {{"messaging.operation.name", "ack"},
                           {"messaging.destination.name", topic}};
      phases.push_back(measure("consume + ack", client, broker, "acknowledge", operationDuration,
                               acks, outcome, [&] {
                                 return receiveAll(consumer, options.messages, options.window,
                                                   timeout, [&](const Message& m, auto done) {
                                                     consumer.asyncAcknowledge(m, std::move(done));
                                                   });
                               }));
      complete = completed("consume + ack", "acknowledgements", outcome, options.json);
    }
    consumer.close();
    producer.close();
  }
  if (complete) {
    auto topic = topicName("retry");
    ConsumerOptions consumerOptions;
    consumerOptions.topics = {topic};
    consumerOptions.subscription = "perf";
    consumerOptions.initialPosition = InitialPosition::earliest;
    consumerOptions.retry = RetryPolicy::levels(DelayLevels::parse("1h"));
    consumerOptions.transactionalRetry = options.transactional;
    if (!options.batching) consumerOptions.retryBatchingWindow = 0ms;
    auto consumer = client.subscribe(consumerOptions);
    ProducerOptions producerOptions;
    producerOptions.topic = topic;
    producerOptions.maxPendingMessages = static_cast<std::size_t>(options.window);
    producerOptions.batching.enabled = options.batching;
    auto producer = client.createProducer(producerOptions);
    const char* name = options.transactional ? "reconsume (txn)" : "reconsumeLater";
    complete =
        completed("publishing for the reconsume phase", "sends",
                  publish(producer, options.messages, payload, options.window), options.json);
    if (complete) {
      Outcome outcome;
      phases.push_back(measure(name, client, broker, "reconsumeLater", "reconsume.retry.duration",
                               {{"messaging.consumer.group.name", "perf"}}, outcome, [&] {
                                 return receiveAll(consumer, options.messages, options.window,
                                                   timeout, [&](const Message& m, auto done) {
                                                     consumer.asyncReconsumeLater(m,
                                                                                  std::move(done));
                                                   });
                               }));
      complete = completed(name, "reconsumeLater calls", outcome, options.json);
    }
    consumer.close();
    producer.close();
  }
  client.close();

  PerfRun run{settings.url,      options.messages,      options.size,     options.window,
              options.ioThreads, options.transactional, options.batching, phases};
  run.brokerReadsProblem = broker.problem();
  std::fputs((options.json ? perfJson(run) : perfTable(run)).c_str(), stdout);
  return complete ? 0 : 1;
}

}  // namespace

void addPerfCommand(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<PerfOptions>();
  auto* perf = app.add_subcommand(
      "perf", "Measure publish, consume-and-acknowledge and reconsumeLater rates and their cost");
  addConnectionFlags(*perf, options->connection, "embedded://perf", /*withAdminUrl=*/true);
  perf->add_option("--messages,-n", options->messages, "Messages per phase")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000'000));
  perf->add_option("--size,-s", options->size, "Payload bytes")
      ->capture_default_str()
      ->check(CLI::Range(0, 4 * 1024 * 1024));
  perf->add_option("--window", options->window, "Operations in flight")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  perf->add_option("--io-threads", options->ioThreads, "The client's I/O threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  perf->add_option("--batching", options->batching,
                   "on: batch publishes and retry copies (the default); off: one entry per "
                   "message")
      ->transform(
          CLI::CheckedTransformer(std::map<std::string, bool>{{"on", true}, {"off", false}}))
      ->default_str("on");
  perf->add_option("--ack-group-time", options->ackGroupMs,
                   "Milliseconds the consume + ack phase groups acknowledgements for (Java's "
                   "default 100; 0: each sent at once and confirmed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 60'000));
  perf->add_flag("--json", options->json, "The results as one JSON object");
  perf->add_flag("--transactional", options->transactional,
                 "reconsumeLater in the transactional mode (transactionalRetry)");
  perf->add_option("--timeout", options->timeout,
                   "Wait at most this long for connecting or for the next message "
                   "(e.g. 10s; a bare number is seconds)")
      ->capture_default_str();
  perf->footer(kExitCodesFooter);
  perf->callback([options, &exitCode] {
    exitCode = runReporting([&] { return runPerf(*options); }, options->json);
  });
}

}  // namespace reconsume::tools
