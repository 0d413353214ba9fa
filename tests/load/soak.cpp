// reconsume_soak: steady publish / consume / reconsumeLater against a broker that is restarted at
// intervals, sampling the process's resident memory and open descriptors. At the end it waits
// until every confirmed message has a final outcome (acknowledged, or dead-lettered after
// maxRetries), prints the samples as a small terminal chart and checks that memory and
// descriptors stayed flat and that nothing was lost. Run by scripts/soak.sh.
//
//   reconsume_soak --url pulsar://localhost:6650 [--minutes 30] [--rate 200] [--sample-s 10]
//                  [--restart-command CMD --restart-every-s 300] [--max-rss-growth-mib 16]
//
// Exit status: 0 when nothing was lost and both stayed flat, 1 otherwise, 2 for bad arguments.
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "load/flags.hpp"
#include "load/process_memory.hpp"
#include "load/soak_chart.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::load {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
constexpr int kMaxRetries = 3;

struct Settings {
  std::string url;
  double minutes = 30;
  int rate = 200;  // messages published per second
  int sampleSeconds = 10;
  std::string restartCommand;
  int restartEverySeconds = 300;
  double maxRssGrowthMiB = 16;
};

Settings parse(int argc, char** argv) {
  Settings settings;
  settings.url = Flags::urlFromEnvironment();
  Flags flags(argc, argv);
  while (flags.next()) {
    const auto& flag = flags.flag();
    auto value = [&] { return flags.value(); };
    if (flag == "--url")
      settings.url = value();
    else if (flag == "--minutes")
      settings.minutes = std::stod(value());
    else if (flag == "--rate")
      settings.rate = std::stoi(value());
    else if (flag == "--sample-s")
      settings.sampleSeconds = std::stoi(value());
    else if (flag == "--restart-command")
      settings.restartCommand = value();
    else if (flag == "--restart-every-s")
      settings.restartEverySeconds = std::stoi(value());
    else if (flag == "--max-rss-growth-mib")
      settings.maxRssGrowthMiB = std::stod(value());
    else
      flags.unknown();
  }
  if (settings.url.empty()) throw std::invalid_argument("no --url and no RECONSUME_PULSAR_URL");
  if (settings.minutes <= 0) throw std::invalid_argument("--minutes must be positive");
  if (settings.rate < 1) throw std::invalid_argument("--rate must be at least 1");
  if (settings.sampleSeconds < 1) throw std::invalid_argument("--sample-s must be at least 1");
  if (settings.restartEverySeconds < 10) {
    throw std::invalid_argument("--restart-every-s must be at least 10");
  }
  return settings;
}

// Whether delivery `times` of message n fails (reconsumeLater): about 30%, the same on every run.
bool failsAt(long long n, int times) {
  auto h =
      static_cast<unsigned long long>(n) * 2654435761ull + static_cast<unsigned>(times) * 40503u;
  return (h >> 7) % 10 < 3;
}

// What the workload has done so far; every counter is read by the sampler while it runs.
struct Tally {
  explicit Tally(std::size_t capacity) : outcome(capacity), confirmed(capacity) {}
  std::atomic<long long> published{0}, sendFailed{0}, delivered{0}, retried{0}, failedCalls{0};
  std::atomic<long long> finished{0};  // messages with a final outcome
  std::vector<std::atomic<bool>> outcome;
  std::vector<std::atomic<bool>> confirmed;

  void finish(long long n) {
    if (n >= 0 && static_cast<std::size_t>(n) < outcome.size() && !outcome[n].exchange(true)) {
      ++finished;
    }
  }
};

// What malloc has handed out and not had back (small blocks and mmapped ones): unlike RSS, it does
// not include memory the allocator keeps for reuse, so it tells a leak from a high-water mark.
double heapInUseMiB() {
  auto info = ::mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

int openDescriptors() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

struct Sample {
  double seconds = 0;
  double rssMiB = 0;
  double heapMiB = 0;
  int descriptors = 0;
  long long published = 0, finished = 0;
  bool restarted = false;  // a restart began since the previous sample
};

// Runs `command` every `every` from the start until stopped, recording when each began.
class Restarter {
 public:
  Restarter(std::string command, std::chrono::seconds every, Clock::time_point start)
      : command_(std::move(command)), every_(every), start_(start) {
    if (!command_.empty()) thread_ = std::thread([this] { loop(); });
  }
  ~Restarter() { stop(); }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // Restarts begun since the last call.
  int takeBegun() { return begun_.exchange(0); }
  int count() const { return total_; }
  int failed() const { return failed_; }

 private:
  void loop() {
    for (int k = 1;; ++k) {
      std::unique_lock lock(mutex_);
      if (wake_.wait_until(lock, start_ + k * every_, [this] { return stop_; })) return;
      lock.unlock();
      ++begun_;
      ++total_;
      auto began = Clock::now();
      int status = std::system(command_.c_str());
      if (status != 0) ++failed_;
      std::printf("[ soak ] restart %d: \"%s\" exited %d after %.1f s\n", k, command_.c_str(),
                  status, std::chrono::duration<double>(Clock::now() - began).count());
      std::fflush(stdout);
    }
  }

  std::string command_;
  std::chrono::seconds every_;
  Clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<int> begun_{0}, total_{0}, failed_{0};
  std::thread thread_;
};

ConsumerOptions consumerOptions(const std::string& topic) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "soak";
  options.subscriptionType = SubscriptionType::shared;
  options.initialPosition = InitialPosition::earliest;
  options.retry = RetryPolicy::levels(DelayLevels::parse("100ms 200ms 500ms"), kMaxRetries);
  options.negativeAckRedeliveryDelay = 1s;
  return options;
}

void handle(Consumer& consumer, const Message& message, Tally& tally) {
  ++tally.delivered;
  auto n = std::stoll(message.property("n").value_or("-1"));
  int times = std::stoi(message.property("RECONSUMETIMES").value_or("0"));
  try {
    if (failsAt(n, times)) {
      consumer.reconsumeLater(message);
      ++tally.retried;
      if (times >= kMaxRetries) tally.finish(n);  // past maxRetries: dead-lettered
    } else {
      consumer.acknowledge(message);
      tally.finish(n);
    }
  } catch (const Error&) {
    // The broker is restarting: the message comes back (a failed reconsumeLater gives it back,
    // an acknowledgement that did not arrive is redelivered after the reconnection).
    ++tally.failedCalls;
  }
}

// The largest value of `field` over samples [from, to).
template <typename Field>
double largest(const std::vector<Sample>& samples, std::size_t from, std::size_t to, Field field) {
  double result = 0;
  for (auto i = from; i < to && i < samples.size(); ++i)
    result = std::max(result, static_cast<double>(field(samples[i])));
  return result;
}

int run(const Settings& settings) {
  ClientOptions clientOptions;
  clientOptions.logLevel = LogLevel::error;  // restarts log warnings by the hundred
  auto client = Client::connect(settings.url, clientOptions);
  auto topic =
      "soak-" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  auto consumer = client.subscribe(consumerOptions(topic));
  auto producer = client.createProducer(topic);

  auto duration = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(settings.minutes * 60));
  auto capacity = static_cast<std::size_t>(settings.rate * settings.minutes * 60 * 1.05) + 1000;
  Tally tally(capacity);
  std::atomic<bool> stop{false};
  std::atomic<long long> sendsInFlight{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < 2; ++w) {
    workers.emplace_back([&] {
      while (!stop) {
        try {
          if (auto message = consumer.receive(200ms)) handle(consumer, *message, tally);
        } catch (const Error&) {
          ++tally.failedCalls;
        }
      }
    });
  }
  auto start = Clock::now();
  std::thread publisher([&] {
    auto interval = std::chrono::duration_cast<Clock::duration>(1s) / settings.rate;
    for (long long n = 0; Clock::now() - start < duration && n < static_cast<long long>(capacity);
         ++n) {
      std::this_thread::sleep_until(start + n * interval);  // the publishing rate, not a wait
      OutgoingMessage message;
      message.payload = "soak-" + std::to_string(n);
      message.properties = {{"n", std::to_string(n)}};
      ++sendsInFlight;
      producer.asyncSend(message, [&, n](boost::system::error_code ec, MessageId) {
        if (ec) {
          ++tally.sendFailed;
        } else {
          tally.confirmed[static_cast<std::size_t>(n)] = true;
          ++tally.published;
        }
        --sendsInFlight;
      });
    }
  });
  Restarter restarter(settings.restartCommand, std::chrono::seconds(settings.restartEverySeconds),
                      start);

  std::vector<Sample> samples;
  auto sampleOnce = [&] {
    Sample sample;
    sample.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    sample.rssMiB = mebibytes(ProcessMemory::read().residentKiB);
    sample.heapMiB = heapInUseMiB();
    sample.descriptors = openDescriptors();
    sample.published = tally.published;
    sample.finished = tally.finished;
    sample.restarted = restarter.takeBegun() > 0;
    samples.push_back(sample);
    std::printf(
        "[ soak ] %6.0f s  RSS %6.1f MiB  heap %5.1f MiB  fds %3d  published %8lld  "
        "finished %8lld  retries %8lld  failed calls %lld%s\n",
        sample.seconds, sample.rssMiB, sample.heapMiB, sample.descriptors, sample.published,
        sample.finished, tally.retried.load(), tally.failedCalls.load(),
        sample.restarted ? "  (broker restarting)" : "");
    std::fflush(stdout);
  };
  sampleOnce();
  for (int k = 1; Clock::now() - start < duration; ++k) {
    std::this_thread::sleep_until(start + k * std::chrono::seconds(settings.sampleSeconds));
    sampleOnce();
  }
  publisher.join();
  restarter.stop();

  // Every confirmed message must reach its final outcome; the broker may have just restarted.
  auto drainDeadline = Clock::now() + 180s;
  auto unfinished = [&] {
    long long count = 0;
    for (std::size_t n = 0; n < capacity; ++n) {
      if (tally.confirmed[n] && !tally.outcome[n]) ++count;
    }
    return count;
  };
  while ((sendsInFlight > 0 || unfinished() > 0) && Clock::now() < drainDeadline) {
    std::this_thread::sleep_for(1s);  // polling a terminal state, bounded by the deadline
  }
  sampleOnce();
  stop = true;
  for (auto& worker : workers) worker.join();
  long long lost = unfinished();
  producer.close();
  consumer.close();
  client.close();

  std::vector<double> rss, heap, fds;
  std::vector<bool> restarts;
  for (const auto& s : samples) {
    rss.push_back(s.rssMiB);
    heap.push_back(s.heapMiB);
    fds.push_back(s.descriptors);
    restarts.push_back(s.restarted);
  }
  std::printf("\n%s\n%s\n%s\n", chart("resident memory (MiB)", rss, restarts).c_str(),
              chart("heap in use (MiB)", heap, restarts).c_str(),
              chart("open descriptors", fds, restarts).c_str());

  // Flat: after the first minute (connections, pools, caches warming up), the second half of the
  // run holds no more than the first half did, within the bound.
  auto warm = std::min(samples.size() / 4, static_cast<std::size_t>(60 / settings.sampleSeconds));
  auto half = warm + (samples.size() - warm) / 2;
  double rssEarly = largest(samples, warm, half, [](const Sample& s) { return s.rssMiB; });
  double rssLate = largest(samples, half, samples.size(), [](const Sample& s) { return s.rssMiB; });
  double heapEarly = largest(samples, warm, half, [](const Sample& s) { return s.heapMiB; });
  double heapLate =
      largest(samples, half, samples.size(), [](const Sample& s) { return s.heapMiB; });
  double fdEarly = largest(samples, warm, half, [](const Sample& s) { return s.descriptors; });
  double fdLate =
      largest(samples, half, samples.size(), [](const Sample& s) { return s.descriptors; });
  std::printf(
      "[ soak ] %.1f min, %d restarts (%d failed), published %lld (%lld sends failed), "
      "delivered %lld, retries %lld, failed calls %lld, lost %lld\n"
      "[ soak ] RSS after warm-up: first half max %.1f MiB, second half max %.1f MiB (growth "
      "%+.1f MiB, bound %.1f); heap in use: %.1f then %.1f MiB; descriptors: %.0f then %.0f\n",
      settings.minutes, restarter.count(), restarter.failed(), tally.published.load(),
      tally.sendFailed.load(), tally.delivered.load(), tally.retried.load(),
      tally.failedCalls.load(), lost, rssEarly, rssLate, rssLate - rssEarly,
      settings.maxRssGrowthMiB, heapEarly, heapLate, fdEarly, fdLate);
  bool ok = true;
  if (lost > 0) {
    std::printf("FAIL: %lld confirmed messages have no final outcome\n", lost);
    ok = false;
  }
  if (rssLate - rssEarly > settings.maxRssGrowthMiB) {
    std::printf("FAIL: resident memory grew by %.1f MiB\n", rssLate - rssEarly);
    ok = false;
  }
  if (fdLate > fdEarly + 2) {
    std::printf("FAIL: open descriptors grew from %.0f to %.0f\n", fdEarly, fdLate);
    ok = false;
  }
  if (restarter.failed() > 0) {
    std::printf("FAIL: %d broker restarts failed\n", restarter.failed());
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace reconsume::load

int main(int argc, char** argv) {
  using namespace reconsume::load;
  Settings settings;
  try {
    settings = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reconsume_soak: %s\n", e.what());
    return 2;
  }
  try {
    return run(settings);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reconsume_soak: %s\n", e.what());
    return 1;
  }
}
