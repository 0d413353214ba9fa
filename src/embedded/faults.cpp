#include "embedded/faults.hpp"

#include <string>

#include "reconsume/error.hpp"

namespace reconsume::detail::embedded {

void Faults::arm(std::atomic<int>& count, int n, const char* control) {
  if (n < 0) {
    throw Error(errc::invalid_argument, std::string(control) + "(" + std::to_string(n) +
                                            "): the count must not be negative");
  }
  count.store(n, std::memory_order_release);
}

void Faults::loseNextAcknowledgementAnswers(int n) {
  arm(lostAcknowledgementAnswers_, n, "loseNextAcknowledgementAnswers");
}

void Faults::loseNextCommitAnswers(int n) {
  arm(lostCommitAnswers_, n, "loseNextCommitAnswers");
}

void Faults::refuseNextCommits(int n) {
  arm(refusedCommits_, n, "refuseNextCommits");
}

void Faults::clear() {
  lostAcknowledgementAnswers_.store(0);
  lostCommitAnswers_.store(0);
  refusedCommits_.store(0);
}

}  // namespace reconsume::detail::embedded
