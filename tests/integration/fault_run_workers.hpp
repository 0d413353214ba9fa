// The fault run's workers: threads receiving from one Consumer and handling each delivery as its
// fate says (fault_run_fate.hpp), in the run's delivery mode. A call that fails is counted by its
// errc and the handler moves on: the message is given back (negative acknowledgement) and comes
// again if it must.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "integration/fault_run.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration::faultrun {

// The calls that failed, by errc and by operation. "(unknown_outcome)" marks a failure the library
// reports with an unknown outcome (a coordinator request, such as a commit, whose answer was lost:
// e.g. "timeout(unknown_outcome)", "transaction_not_found(unknown_outcome)").
class FailedCalls {
 public:
  void add(const std::string& operation, const std::error_code& code, const std::string& what);
  std::map<std::string, long> byErrc() const;
  std::map<std::string, long> byCall() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, long> byErrc_, byCall_;
  int printed_{0};
};

std::string errcName(const std::error_code& code, const std::string& what);

// Deliveries handed to the handler, and how many of them repeat one handed over before (the same
// id and RECONSUMETIMES): the broker delivered the message again although it had been handled.
// Also the ids whose final call (the success path, deadLetter, the reconsumeLater that passes
// maxRetries) succeeded: the run's progress as the process sees it, ahead of the topics'.
class Deliveries {
 public:
  explicit Deliveries(int messages);
  void add(int n, int reconsumeTimes);
  void finished(int n);
  long total() const { return total_; }
  long repeated() const { return repeated_; }
  int finishedIds() const { return finishedIds_; }

 private:
  std::vector<std::atomic<int>> seen_;  // per id and RECONSUMETIMES
  std::vector<std::atomic<bool>> finished_;
  std::atomic<long> total_{0}, repeated_{0};
  std::atomic<int> finishedIds_{0};
};

struct Handler {
  Client& client;
  Consumer& consumer;
  Producer& done;  // the "done" topic
  Mode mode;
  FailedCalls& failures;
  Deliveries& deliveries;

  // Whatever happens, returns normally.
  void handle(const Message& message);

 private:
  void succeedAtLeastOnce(const Message& message, int n, int times);
  void succeedTransactionally(const Message& message, int n, int times);
  void giveBack(const Message& message);
};

class Workers {
 public:
  Workers(Handler& handler, int count);
  ~Workers();  // stops and joins
  // While paused, the workers receive nothing (messages wait in the consumer).
  void pause() { paused_ = true; }
  void resume() { paused_ = false; }
  void stop();

 private:
  void work();

  Handler& handler_;
  std::atomic<bool> stop_{false}, paused_{false};
  std::vector<std::thread> threads_;
};

}  // namespace reconsume::integration::faultrun
