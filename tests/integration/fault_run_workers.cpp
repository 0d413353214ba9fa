#include "integration/fault_run_workers.hpp"

#include <cstdio>
#include <functional>

#include "common/metrics_registry.hpp"
#include "integration/fault_run_fate.hpp"

namespace reconsume::integration::faultrun {

namespace {

using namespace std::chrono_literals;

constexpr int kPrintedFailures = 10;  // the first failures are printed in full

// Runs one call; a failure is counted and reported as false.
bool attempt(FailedCalls& failures, const std::string& operation, const std::function<void()>& f) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    failures.add(operation, e.code(), e.what());
  } catch (const std::exception& e) {
    failures.add(operation, std::make_error_code(std::errc::io_error), e.what());
  }
  return false;
}

int intProperty(const Message& message, std::string_view key, int fallback) {
  auto text = message.property(key);
  return text ? std::stoi(*text) : fallback;
}

OutgoingMessage output(int n, int times) {
  OutgoingMessage out;
  out.payload = "done-" + std::to_string(n);
  out.properties = {{"n", std::to_string(n)}, {"attempt", std::to_string(times + 1)}};
  return out;
}

}  // namespace

std::string errcName(const std::error_code& code, const std::string& what) {
  if (code.category() != category()) return code.message();
  std::string name(detail::metrics::errorType(code));
  // A commit whose answer was lost: committed, or aborted by the timeout.
  bool unknown =
      what.find("outcome") != std::string::npos && what.find("unknown") != std::string::npos;
  return unknown ? name + "(unknown_outcome)" : name;
}

void FailedCalls::add(const std::string& operation, const std::error_code& code,
                      const std::string& what) {
  auto name = errcName(code, what);
  std::lock_guard lock(mutex_);
  ++byErrc_[name];
  ++byCall_[operation + " " + name];
  if (printed_++ < kPrintedFailures) {
    std::fprintf(stderr, "[ fault-run ] %s failed (%s): %s\n", operation.c_str(), name.c_str(),
                 what.c_str());
  }
}

std::map<std::string, long> FailedCalls::byErrc() const {
  std::lock_guard lock(mutex_);
  return byErrc_;
}

std::map<std::string, long> FailedCalls::byCall() const {
  std::lock_guard lock(mutex_);
  return byCall_;
}

Deliveries::Deliveries(int messages)
    : seen_(static_cast<std::size_t>(messages) * (kMaxRetries + 1)),
      finished_(static_cast<std::size_t>(messages)) {}

void Deliveries::finished(int n) {
  if (n >= 0 && static_cast<std::size_t>(n) < finished_.size() && !finished_[n].exchange(true)) {
    ++finishedIds_;
  }
}

void Deliveries::add(int n, int reconsumeTimes) {
  ++total_;
  auto slot = static_cast<std::size_t>(n) * (kMaxRetries + 1) + reconsumeTimes;
  if (n >= 0 && reconsumeTimes >= 0 && reconsumeTimes <= kMaxRetries && slot < seen_.size() &&
      seen_[slot]++ > 0)
    ++repeated_;
}

void Handler::handle(const Message& message) {
  int n = intProperty(message, "n", -1);
  int times = intProperty(message, "RECONSUMETIMES", 0);
  deliveries.add(n, times);
  switch (actionFor(n, times)) {
    case Action::deadLetter:
      // On failure the library gives the message back itself.
      if (attempt(failures, "deadLetter", [&] { consumer.deadLetter(message, "invalid"); })) {
        deliveries.finished(n);
      }
      return;
    case Action::retry:
      if (attempt(failures, "reconsumeLater", [&] { consumer.reconsumeLater(message); }) &&
          times >= kMaxRetries) {
        deliveries.finished(n);  // it passed maxRetries: dead-lettered, exhausted
      }
      return;
    case Action::succeed:
      if (mode == Mode::transactional) return succeedTransactionally(message, n, times);
      return succeedAtLeastOnce(message, n, times);
  }
}

void Handler::succeedAtLeastOnce(const Message& message, int n, int times) {
  if (!attempt(failures, "send", [&] { done.send(output(n, times)); })) return giveBack(message);
  if (!attempt(failures, "acknowledge", [&] { consumer.acknowledge(message); })) {
    return giveBack(message);  // acknowledged meanwhile: the broker ignores the redelivery request
  }
  deliveries.finished(n);
}

void Handler::succeedTransactionally(const Message& message, int n, int times) {
  Transaction txn;
  TransactionOptions options;
  options.timeout = 20s;  // as the library's own (the client's operation timeout)
  if (!attempt(failures, "newTransaction", [&] { txn = client.newTransaction(options); })) {
    return giveBack(message);
  }
  bool moved =
      attempt(failures, "send in transaction", [&] { done.send(output(n, times), txn); }) &&
      attempt(failures, "acknowledge in transaction", [&] { consumer.acknowledge(message, txn); });
  if (!moved) {
    attempt(failures, "abort", [&] { txn.abort(); });
    return giveBack(message);
  }
  // Refused: aborted by the coordinator. Unknown outcome: committed, or aborted by the timeout.
  // Either way the message comes back only if its acknowledgement did not commit.
  if (!attempt(failures, "commit", [&] { txn.commit(); })) return giveBack(message);
  deliveries.finished(n);
}

void Handler::giveBack(const Message& message) {
  attempt(failures, "negativeAcknowledge", [&] { consumer.negativeAcknowledge(message); });
}

Workers::Workers(Handler& handler, int count) : handler_(handler) {
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { work(); });
}

Workers::~Workers() {
  stop();
}

void Workers::stop() {
  stop_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void Workers::work() {
  while (!stop_) {
    if (paused_) {
      std::this_thread::sleep_for(50ms);  // polling the pause flag; nothing to wait on
      continue;
    }
    std::optional<Message> received;
    if (!attempt(handler_.failures, "receive",
                 [&] { received = handler_.consumer.receive(200ms); })) {
      std::this_thread::sleep_for(100ms);
      continue;
    }
    if (received) handler_.handle(*received);
  }
}

}  // namespace reconsume::integration::faultrun
