// The window of `reconsume perf`: at most N asynchronous operations in flight.
#pragma once

#include <atomic>
#include <boost/system/error_code.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace reconsume::tools {

// Counts async completions and bounds how many are in flight, as the Java harness's Semaphore
// (Perf.java) does: a permit is taken and given back with an atomic operation, and a completion
// wakes the sending thread only when that thread sleeps waiting for it, and then once: the release
// that gives it enough permits takes its wish (wanted_) and wakes it; the releases after it, until
// the thread sleeps again, see no wish and neither lock nor signal (as the Semaphore's queue node
// loses its waiting status to the first release that unparks it). The completions of one receipt
// come in a burst on the I/O thread, faster than a woken thread gets to run.
//
// Not std::counting_semaphore: libstdc++ 12's spins through sched_yield calls before it sleeps, and
// makes a futex call for every release that finds no permit left whether or not anyone waits — on
// a saturated window, tens of thousands of system calls per phase that Java's Semaphore does not
// make, counted as the client's CPU. Nor a mutex and condition variable for every permit: the
// completions and the sending thread contended for the mutex.
//
// Held by shared pointer, captured by each completion: the last release may still be returning
// when waitForAll() has seen its permit. Thread safety: one thread (the harness's) calls acquire()
// and waitForAll(); any thread calls release(), failures() and failed().
class InFlight {
 public:
  explicit InFlight(int window) : window_(window), available_(window) {}

  void acquire() { take(1); }

  // A completion: a failure when `ec` is set. The first failure's code is kept (firstFailure()).
  void release(const boost::system::error_code& ec) {
    if (ec) {
      std::lock_guard<std::mutex> lock(firstMutex_);  // failures are rare: no cost on success
      if (!first_) first_ = ec;
    }
    release(static_cast<bool>(ec));
  }

  void release(bool failed) {
    if (failed) failures_.fetch_add(1, std::memory_order_relaxed);
    // Both this and take()'s store to wanted_ are sequentially consistent: either this load sees
    // what the waiter wants, or the waiter's next load sees this permit.
    const int available = available_.fetch_add(1, std::memory_order_seq_cst) + 1;
    int wanted = wanted_.load(std::memory_order_seq_cst);
    if (wanted > 0 && available >= wanted &&
        wanted_.compare_exchange_strong(wanted, 0, std::memory_order_seq_cst)) {
      { std::lock_guard<std::mutex> lock(mutex_); }  // the waiter is inside wait(), or past it
      wakes_.fetch_add(1, std::memory_order_relaxed);
      wake_.notify_one();
    }
  }

  // Returns once every started operation completed: every permit is back.
  void waitForAll() {
    take(window_);
    available_.fetch_add(window_);
  }

  int failures() const { return failures_.load(std::memory_order_relaxed); }
  // How many times a release woke the sending thread (for tests).
  int wakes() const { return wakes_.load(std::memory_order_relaxed); }
  // Whether the sending thread sleeps, or is about to, waiting for permits (for tests).
  bool sleeping() const { return wanted_.load(std::memory_order_seq_cst) > 0; }
  // Whether an operation failed: the harness stops starting new ones (a phase with a failure
  // measures a broken run, and one whose broker fails every send would wait a send timeout for
  // each window of operations).
  bool failed() const { return failures() > 0; }
  // The code of the first failure released with one; nothing before, or when the failures were
  // released as bare flags.
  std::optional<boost::system::error_code> firstFailure() const {
    std::lock_guard<std::mutex> lock(firstMutex_);
    return first_;
  }

 private:
  // Takes `permits` at once (one sending thread takes them: the harness's own).
  void take(int permits) {
    int seen = available_.load(std::memory_order_acquire);
    for (;;) {
      if (seen >= permits) {
        if (available_.compare_exchange_weak(seen, seen - permits, std::memory_order_acquire))
          return;
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      wanted_.store(permits, std::memory_order_seq_cst);
      if (available_.load(std::memory_order_seq_cst) < permits) wake_.wait(lock);
      wanted_.store(0, std::memory_order_relaxed);
      seen = available_.load(std::memory_order_acquire);
    }
  }

  int window_;
  std::atomic<int> available_;
  // While the sending thread sleeps: how many permits it waits for; 0 once a release took it on
  // to wake the thread.
  std::atomic<int> wanted_{0};
  std::atomic<int> wakes_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<int> failures_{0};
  mutable std::mutex firstMutex_;
  std::optional<boost::system::error_code> first_;
};

}  // namespace reconsume::tools
