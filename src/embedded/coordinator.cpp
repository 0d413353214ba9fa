#include "embedded/coordinator.hpp"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "embedded/topic.hpp"

namespace reconsume::detail::embedded {
namespace {

// How many ended transactions keep their outcome for error texts; older ones are "unknown".
constexpr std::size_t kRememberedOutcomes = 10'000;

}  // namespace

struct Coordinator::Txn {
  bool ending = false;  // committing or aborting: no longer open
  Outcome endingAs = Outcome::aborted;
  std::optional<Clock::TimerId> timer;  // none once the coordinator shut down
  // Held weakly: a topic deleted meanwhile has nothing left to end. owner_less, not raw
  // pointers, so a new object at a freed address is never taken for an old one.
  std::set<std::weak_ptr<Topic>, std::owner_less<>> topics;
  std::map<std::weak_ptr<Subscription>, std::weak_ptr<Topic>, std::owner_less<>> subscriptions;
};

Coordinator::Coordinator(std::shared_ptr<Clock> clock, std::shared_ptr<Faults> faults)
    : clock_(std::move(clock)), faults_(std::move(faults)) {}

Coordinator::~Coordinator() {
  shutdown();
}

void Coordinator::shutdown() {
  std::lock_guard lock(mutex_);
  shutDown_ = true;
  for (auto& [sequence, txn] : live_) {
    if (txn->timer) clock_->cancel(*std::exchange(txn->timer, std::nullopt));
  }
}

TxnId Coordinator::begin(std::chrono::milliseconds timeout) {
  std::lock_guard lock(mutex_);
  TxnId id{kId, nextSequence_++};
  auto txn = std::make_unique<Txn>();
  // The clock never runs a timer inside schedule, so scheduling under the mutex is safe.
  if (!shutDown_) {
    // A wait of a length: on monotonic time, which a step of the wall clock does not move.
    txn->timer =
        clock_->scheduleSteady(clock_->steadyNow() + timeout, [self = weak_from_this(), id] {
          if (auto coordinator = self.lock()) coordinator->onTimeout(id);
        });
  }
  live_.emplace(id.leastBits, std::move(txn));
  return id;
}

Status Coordinator::join(const TxnId& id, Topic& topic) {
  std::lock_guard lock(mutex_);
  auto found = id.mostBits == kId ? live_.find(id.leastBits) : live_.end();
  if (found == live_.end() || found->second->ending) {
    return Status(errc::transaction_not_found, whyNotOpen(id));
  }
  found->second->topics.insert(topic.weak_from_this());
  return {};
}

Status Coordinator::join(const TxnId& id, Topic& topic, Subscription& subscription) {
  std::lock_guard lock(mutex_);
  auto found = id.mostBits == kId ? live_.find(id.leastBits) : live_.end();
  if (found == live_.end() || found->second->ending) {
    return Status(errc::transaction_not_found, whyNotOpen(id));
  }
  found->second->subscriptions.emplace(subscription.weak_from_this(), topic.weak_from_this());
  return {};
}

Status Coordinator::commit(const TxnId& id) {
  auto status = end(id, Outcome::committed);
  if (faults_->takeLostCommitAnswer()) {
    return Status(errc::connection_lost,
                  "the answer to the commit of " + id.toString() +
                      " was lost (injected fault); the coordinator answered: " +
                      (status.ok() ? std::string("committed") : status.message));
  }
  return status;
}

Status Coordinator::abort(const TxnId& id) {
  return end(id, Outcome::aborted);
}

void Coordinator::onTimeout(const TxnId& id) {
  end(id, Outcome::timedOut);  // not open any more: it ended before its timeout, nothing to do
}

Status Coordinator::end(const TxnId& id, Outcome wanted) {
  const bool committing = wanted == Outcome::committed;
  Outcome outcome = wanted;
  std::set<std::weak_ptr<Topic>, std::owner_less<>> topics;
  std::map<std::weak_ptr<Subscription>, std::weak_ptr<Topic>, std::owner_less<>> subscriptions;
  {
    std::lock_guard lock(mutex_);
    auto found = id.mostBits == kId ? live_.find(id.leastBits) : live_.end();
    if (found == live_.end() || found->second->ending) {
      return Status(errc::transaction_not_found,
                    std::string("cannot ") + (committing ? "commit" : "abort") + " transaction " +
                        id.toString() + ": " + whyNotOpen(id));
    }
    auto& txn = *found->second;
    if (committing && faults_->takeRefusedCommit()) outcome = Outcome::refused;
    txn.ending = true;
    txn.endingAs = outcome;
    if (txn.timer && wanted != Outcome::timedOut) clock_->cancel(*txn.timer);
    topics = std::move(txn.topics);
    subscriptions = std::move(txn.subscriptions);
  }
  // Outside the mutex: each topic takes its own lock, and may run sinks.
  const bool commit = outcome == Outcome::committed;
  for (const auto& weak : topics) {
    if (auto topic = weak.lock()) topic->endTransaction(id, commit);
  }
  for (const auto& [weakSubscription, weakTopic] : subscriptions) {
    auto subscription = weakSubscription.lock();
    auto topic = weakTopic.lock();
    if (subscription && topic) topic->endTransactionAcks(*subscription, id, commit);
  }
  {
    std::lock_guard lock(mutex_);
    live_.erase(id.leastBits);
    remember(id, outcome);
  }
  if (outcome == Outcome::refused) {
    return Status(errc::broker_error, "the coordinator refused to commit " + id.toString() +
                                          " and aborted it (injected fault)");
  }
  return {};
}

void Coordinator::remember(const TxnId& id, Outcome outcome) {
  ended_[id.leastBits] = outcome;
  // Sequence numbers grow: the first entries are the oldest.
  while (ended_.size() > kRememberedOutcomes) ended_.erase(ended_.begin());
}

std::string Coordinator::whyNotOpen(const TxnId& id) const {
  std::string prefix = "it is not open";
  if (id.mostBits == kId) {
    if (auto live = live_.find(id.leastBits); live != live_.end()) {
      return prefix + (live->second->endingAs == Outcome::committed ? " (it is being committed)"
                                                                    : " (it is being aborted)");
    }
    if (auto ended = ended_.find(id.leastBits); ended != ended_.end()) {
      switch (ended->second) {
        case Outcome::committed:
          return prefix + " (it was committed)";
        case Outcome::aborted:
          return prefix + " (it was aborted)";
        case Outcome::timedOut:
          return prefix + " (it timed out and was aborted)";
        case Outcome::refused:
          return prefix + " (the coordinator refused to commit it and aborted it)";
      }
    }
    if (id.leastBits < nextSequence_) return prefix + " (it ended)";
  }
  return prefix + " (the coordinator of this embedded broker never opened it)";
}

}  // namespace reconsume::detail::embedded
