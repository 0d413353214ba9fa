// Faults a test injects into one embedded broker, so that "exactly one outcome" under a lost
// answer or a refused commit is tested deterministically instead of by killing a real broker.
// Each control arms a count; the next requests of its kind that reach the broker use it up, one
// each. Armed or not, the broker's behaviour is otherwise unchanged.
//
// - loseNextAcknowledgementAnswers(n): the next n acknowledgements (with or without a
//   transaction) that reach the broker keep their outcome — an applied acknowledgement stays
//   applied, a refused one stays refused — but the caller is told errc::connection_lost, as when
//   a Pulsar connection drops after the broker processed the ACK.
// - loseNextCommitAnswers(n): the same for the next n commits that reach the coordinator.
// - refuseNextCommits(n): the next n commits of open transactions fail with errc::broker_error
//   and the coordinator aborts those transactions. A commit of a transaction that is not open
//   answers transaction_not_found and leaves the count alone.
// A refused commit whose answer is also lost reports connection_lost (and is aborted).
//
// Reached from a test through the registry: findBroker(name)->faults() (broker_registry.hpp).
// Internal and test-only in purpose, but compiled in: a guarded path pays one atomic load.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>

namespace reconsume::detail::embedded {

class Faults {
 public:
  // Each sets its count to n (0 disarms it); a negative n is an invalid_argument Error.
  void loseNextAcknowledgementAnswers(int n);
  void loseNextCommitAnswers(int n);
  void refuseNextCommits(int n);
  // Disarms every control.
  void clear();

  // ---- for the broker: true (and one use consumed) when the fault applies to this request.
  bool takeLostAcknowledgementAnswer() { return take(lostAcknowledgementAnswers_); }
  bool takeLostCommitAnswer() { return take(lostCommitAnswers_); }
  bool takeRefusedCommit() { return take(refusedCommits_); }

 private:
  static bool take(std::atomic<int>& count) {
    int left = count.load(std::memory_order_relaxed);
    while (left > 0) {
      if (count.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) return true;
    }
    return false;
  }
  static void arm(std::atomic<int>& count, int n, const char* control);

  std::atomic<int> lostAcknowledgementAnswers_{0};
  std::atomic<int> lostCommitAnswers_{0};
  std::atomic<int> refusedCommits_{0};
};

}  // namespace reconsume::detail::embedded
