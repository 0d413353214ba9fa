// What the fault run reads back from the broker: the ids on the done topic and on the dead-letter
// topic. OutcomeWatch follows both topics during the run (progress: how many ids have a final
// outcome); readOutcomes reads both from the earliest message with fresh Readers once the run has
// settled, and account() turns that into the run's figures.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/fault_run.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration::faultrun {

// How often each id occurs on the done topic and on the dead-letter topic (with its cause).
struct Outcomes {
  explicit Outcomes(int messages)
      : processed(messages, 0), invalid(messages, 0), exhausted(messages, 0), traces(messages) {}
  std::vector<int> processed, invalid, exhausted;
  // Per id, each occurrence: its topic, message id, the handler's attempt or the retry count,
  // the dead-letter cause and the publish time — what tells how a duplicate came about.
  std::vector<std::vector<std::string>> traces;
  std::size_t foreign{0};  // messages without a valid id (none expected)

  // Counts one message of the done topic or the dead-letter topic; true when it is the first
  // final outcome of its id.
  bool add(const Message& message, bool deadLetter);
  int occurrences(int n) const { return processed[n] + invalid[n] + exhausted[n]; }
};

// Tailing Readers on both topics, each in its own thread, until destroyed. A reader that fails
// (the broker went away) is created anew from the earliest message; messages already counted
// (by message id) are skipped.
class OutcomeWatch {
 public:
  OutcomeWatch(Client& client, std::string doneTopic, std::string deadLetterTopic, int messages);
  ~OutcomeWatch();
  // Ids with at least one final outcome.
  int finalOutcomes() const { return finalOutcomes_; }
  // The first `limit` ids that have none yet.
  std::vector<int> missing(std::size_t limit) const;

 private:
  void follow(const std::string& topic, bool deadLetter);

  Client& client_;
  mutable std::mutex mutex_;
  Outcomes outcomes_;
  std::set<MessageId> seen_[2];
  std::atomic<int> finalOutcomes_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// Both topics read from the earliest message to the end (until nothing more comes).
Outcomes readOutcomes(Client& client, const std::string& doneTopic,
                      const std::string& deadLetterTopic, int messages);

// processed, deadLettered, lost, duplicates, misplaced, missing and duplicated of `figures`.
void account(const Outcomes& outcomes, Figures& figures);

}  // namespace reconsume::integration::faultrun
