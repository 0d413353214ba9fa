// reconsume_flood: floods one producer with asyncSend while the broker is paused (SIGSTOP), then
// resumes it (SIGCONT) and checks that every accepted message was confirmed — and that the
// process's peak resident memory (VmHWM) stayed under a bound. Run by scripts/flood.sh (which
// finds the broker's pid and always resumes it), by the ctest entry reconsume_integration_load
// (200,000 messages) and by hand for 1,000,000.
//
//   reconsume_flood --url pulsar://localhost:6650 --messages 1000000 --payload 1024
//                   [--pause-pid <pid> --pause-ms 5000] [--no-block] [--max-pending N]
//                   [--memory-limit BYTES] [--max-peak-growth-mib M]
//
// Exit status: 0 when nothing was lost (and the bound held), 1 otherwise, 2 for bad arguments.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "load/flags.hpp"
#include "load/process_memory.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::load {
namespace {

using Clock = std::chrono::steady_clock;

struct Settings {
  std::string url;
  long long messages = 200'000;
  std::size_t payload = 1024;
  pid_t pausePid = 0;
  long long pauseMs = 5000;
  bool block = true;
  std::size_t maxPending = 1000;
  long long memoryLimit = -1;   // -1: the client's default
  double maxPeakGrowthMiB = 0;  // 0: not checked
};

// The paused broker is resumed whatever happens to this process short of SIGKILL (and
// scripts/flood.sh resumes it even then).
std::atomic<pid_t> pausedPid{0};
void resumeBroker() {
  if (auto pid = pausedPid.exchange(0); pid > 0) ::kill(pid, SIGCONT);
}
void onSignal(int signal) {
  resumeBroker();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

Settings parse(int argc, char** argv) {
  Settings settings;
  settings.url = Flags::urlFromEnvironment();
  Flags flags(argc, argv);
  while (flags.next()) {
    const auto& flag = flags.flag();
    auto value = [&] { return flags.value(); };
    if (flag == "--url")
      settings.url = value();
    else if (flag == "--messages")
      settings.messages = std::stoll(value());
    else if (flag == "--payload")
      settings.payload = std::stoul(value());
    else if (flag == "--pause-pid")
      settings.pausePid = static_cast<pid_t>(std::stol(value()));
    else if (flag == "--pause-ms")
      settings.pauseMs = std::stoll(value());
    else if (flag == "--no-block")
      settings.block = false;
    else if (flag == "--max-pending")
      settings.maxPending = std::stoul(value());
    else if (flag == "--memory-limit")
      settings.memoryLimit = std::stoll(value());
    else if (flag == "--max-peak-growth-mib")
      settings.maxPeakGrowthMiB = std::stod(value());
    else
      flags.unknown();
  }
  if (settings.url.empty()) throw std::invalid_argument("no --url and no RECONSUME_PULSAR_URL");
  if (settings.messages < 1) throw std::invalid_argument("--messages must be at least 1");
  return settings;
}

// Outcomes of the sends, as their handlers report them.
struct Tally {
  std::atomic<long long> confirmed{0}, busy{0}, timedOut{0}, other{0};
  std::mutex mutex;
  std::condition_variable changed;
  long long completed = 0;
  bool floodDone = false;
  std::string firstOther;

  void record(const boost::system::error_code& ec) {
    if (!ec)
      ++confirmed;
    else if (ec == errc::producer_busy)
      ++busy;
    else if (ec == errc::timeout)
      ++timedOut;
    else {
      std::lock_guard lock(mutex);
      if (other++ == 0) firstOther = ec.message();
    }
    std::lock_guard lock(mutex);
    ++completed;
    changed.notify_all();
  }
};

ClientOptions clientOptions(const Settings& settings) {
  ClientOptions options;
  options.logLevel = LogLevel::error;  // a refused send logs a warning: a million of them
  if (settings.memoryLimit >= 0) {
    options.memoryLimit = static_cast<std::size_t>(settings.memoryLimit);
  }
  return options;
}

int run(const Settings& settings) {
  auto client = Client::connect(settings.url, clientOptions(settings));
  ProducerOptions producerOptions;
  producerOptions.topic =
      "flood-" + std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  producerOptions.maxPendingMessages = settings.maxPending;
  producerOptions.blockIfQueueFull = settings.block;
  auto producer = client.createProducer(producerOptions);
  producer.send("warm-up");  // connected and created before the broker is paused
  auto before = ProcessMemory::read();

  if (settings.pausePid > 0) {
    pausedPid = settings.pausePid;
    ::kill(settings.pausePid, SIGSTOP);
  }
  Tally tally;
  auto started = Clock::now();
  std::thread flood([&] {
    OutgoingMessage message;
    message.payload.assign(settings.payload, 'x');
    for (long long i = 0; i < settings.messages; ++i) {
      producer.asyncSend(message,
                         [&tally](boost::system::error_code ec, MessageId) { tally.record(ec); });
    }
    std::lock_guard lock(tally.mutex);
    tally.floodDone = true;
    tally.changed.notify_all();
  });
  {
    // The broker stays paused for pauseMs, or until every send was handed over.
    std::unique_lock lock(tally.mutex);
    tally.changed.wait_for(lock, std::chrono::milliseconds(settings.pauseMs),
                           [&] { return tally.floodDone; });
  }
  auto pausedFor = Clock::now() - started;
  auto whilePaused = ProcessMemory::read();
  resumeBroker();
  flood.join();
  {
    std::unique_lock lock(tally.mutex);
    tally.changed.wait(lock, [&] { return tally.completed == settings.messages; });
  }
  auto elapsed = Clock::now() - started;
  auto after = ProcessMemory::read();
  producer.close();
  client.close();

  auto ms = [](auto d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
  double growth = mebibytes(after.peakKiB) - mebibytes(before.residentKiB);
  std::printf(
      "messages %lld x %zu B, %s, maxPendingMessages %zu, memoryLimit %s\n"
      "paused %lld ms, total %lld ms\n"
      "confirmed %lld, producer_busy %lld, timeout %lld, other %lld%s%s\n"
      "RSS before flood %.1f MiB, at resume %.1f MiB, peak (VmHWM) %.1f MiB, peak growth %.1f "
      "MiB\n",
      settings.messages, settings.payload, settings.block ? "blockIfQueueFull" : "failing fast",
      settings.maxPending,
      settings.memoryLimit >= 0 ? std::to_string(settings.memoryLimit).c_str() : "default",
      static_cast<long long>(ms(pausedFor)), static_cast<long long>(ms(elapsed)),
      tally.confirmed.load(), tally.busy.load(), tally.timedOut.load(), tally.other.load(),
      tally.firstOther.empty() ? "" : ": ", tally.firstOther.c_str(), mebibytes(before.residentKiB),
      mebibytes(whilePaused.residentKiB), mebibytes(after.peakKiB), growth);
  bool ok = true;
  // Accepted = not refused at once; each must have been confirmed (nothing lost).
  if (tally.confirmed + tally.busy + tally.timedOut + tally.other != settings.messages ||
      tally.other != 0 || tally.timedOut != 0) {
    std::printf("FAIL: not every accepted message was confirmed\n");
    ok = false;
  }
  if (settings.block && tally.busy != 0) {
    std::printf("FAIL: %lld sends refused although blockIfQueueFull is on\n", tally.busy.load());
    ok = false;
  }
  if (settings.maxPeakGrowthMiB > 0 && growth > settings.maxPeakGrowthMiB) {
    std::printf("FAIL: peak RSS grew by %.1f MiB, more than the bound of %.1f MiB\n", growth,
                settings.maxPeakGrowthMiB);
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
    std::fprintf(stderr, "reconsume_flood: %s\n", e.what());
    return 2;
  }
  std::atexit(resumeBroker);
  for (int signal : {SIGINT, SIGTERM, SIGABRT, SIGSEGV}) std::signal(signal, onSignal);
  try {
    return run(settings);
  } catch (const std::exception& e) {
    resumeBroker();
    std::fprintf(stderr, "reconsume_flood: %s\n", e.what());
    return 1;
  }
}
