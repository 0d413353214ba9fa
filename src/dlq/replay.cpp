#include "dlq/replay.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "dlq/picked_receiver.hpp"
#include "dlq/replay_message.hpp"
#include "dlq/token_bucket.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {
namespace {

using std::chrono::milliseconds;

milliseconds since(const Clock& clock, Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(clock.now() - start);
}

// What the completions of sends and acknowledgements report to the replaying thread.
struct Outcomes {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<ReplayItem> items;
  std::size_t inFlight = 0;
  std::size_t confirmed = 0;
  std::size_t failed = 0;
  std::string error;  // the first failure: no new republish starts after it

  void fail(std::size_t index, std::string why) {
    std::lock_guard lock(mutex);
    items[index].outcome = ReplayOutcome::failed;
    items[index].error = why;
    ++failed;
    if (error.empty()) error = std::move(why);
  }
};

// Sends are pipelined (up to maxInFlight); each acknowledgement starts only from the completion
// of its own confirmed send.
class Replayer {
 public:
  Replayer(ActionContext& context, const std::vector<DeadLetter>& picked,
           const std::vector<std::string>& destinations, const ReplayOptions& options)
      : context_(context),
        options_(options),
        destinations_(destinations),
        outcomes_(std::make_shared<Outcomes>()) {
    for (std::size_t i = 0; i < picked.size(); ++i) {
      ReplayItem item;
      item.deadLetterId = picked[i].id();
      item.destination = destinations[i];
      if (item.destination.empty()) {
        item.outcome = ReplayOutcome::skipped;
      } else {
        indexOf_.emplace(item.deadLetterId, i);
        replayable_.push_back(item.deadLetterId);
      }
      outcomes_->items.push_back(std::move(item));
    }
    if (options.ratePerSecond) bucket_.emplace(*options.ratePerSecond);
  }

  ReplayResult run() {
    start_ = context_.clock->now();
    if (!replayable_.empty()) {
      PickedReceiver receiver(context_.client, context_.topic, context_.subscription, replayable_);
      while (!stopped()) {
        std::optional<Message> message;
        try {
          message = receiver.next(context_.patience);
        } catch (const Error& e) {
          // Like any failure half-way: reported in the result, what is not done stays put.
          std::lock_guard lock(outcomes_->mutex);
          if (outcomes_->error.empty()) {
            outcomes_->error =
                "receiving from the dead-letter subscription failed: " + std::string(e.what());
          }
          break;
        }
        if (!message) break;
        republish(*message, receiver.consumer());
      }
      drain();
      closeQuietly(receiver);
    }
    for (auto& [destination, producer] : producers_) closeQuietly(producer);
    return result();
  }

 private:
  bool stopped() {
    std::lock_guard lock(outcomes_->mutex);
    return !outcomes_->error.empty();
  }

  void republish(const Message& message, Consumer& consumer) {
    std::size_t index = indexOf_.at(message.id());
    const std::string& destination = destinations_[index];
    {
      std::unique_lock lock(outcomes_->mutex);
      outcomes_->changed.wait(lock, [&] {
        return outcomes_->inFlight < options_.maxInFlight || !outcomes_->error.empty();
      });
      if (!outcomes_->error.empty()) return;  // left unacknowledged: counted as not attempted
      ++outcomes_->inFlight;
    }
    Producer* producer = producerFor(destination, index);
    if (producer == nullptr) return;
    // The token last, right before the republish is stamped and sent: taken before the producer
    // was made (on first use, tens of milliseconds) or before room in flight, it let one message
    // wait and not the next, two republishes closer together than the rate allows.
    if (bucket_) waitUntil(*context_.clock, bucket_->reserve(context_.clock->now()));
    auto outgoing = replayMessage(message, context_.clock->now());
    producer->asyncSend(
        std::move(outgoing), [outcomes = outcomes_, index, message, consumer, destination](
                                 boost::system::error_code ec, MessageId newId) mutable {
          if (ec) {
            outcomes->fail(index, "republishing " + message.id().toString() + " to " + destination +
                                      " failed: " + ec.message());
            finish(*outcomes);
            return;
          }
          {
            std::lock_guard lock(outcomes->mutex);
            outcomes->items[index].newId = newId;
          }
          // Only now, with the republish confirmed, may the dead letter go.
          consumer.asyncAcknowledge(
              message, [outcomes, index, message, newId](boost::system::error_code ackError) {
                if (ackError) {
                  outcomes->fail(
                      index, "republished " + message.id().toString() + " as " + newId.toString() +
                                 " but acknowledging it on the dead-letter subscription "
                                 "failed: " +
                                 ackError.message() + "; it will be replayed again next time");
                } else {
                  std::lock_guard lock(outcomes->mutex);
                  outcomes->items[index].outcome = ReplayOutcome::replayed;
                  ++outcomes->confirmed;
                }
                finish(*outcomes);
              });
        });
    report();
  }

  static void finish(Outcomes& outcomes) {
    {
      std::lock_guard lock(outcomes.mutex);
      --outcomes.inFlight;
    }
    outcomes.changed.notify_all();
  }

  // The producer of `destination`, created on first use; null (and the item failed) when it
  // cannot be created.
  Producer* producerFor(const std::string& destination, std::size_t index) {
    auto found = producers_.find(destination);
    if (found != producers_.end()) return &found->second;
    try {
      return &producers_.emplace(destination, context_.client.createProducer(destination))
                  .first->second;
    } catch (const Error& e) {
      outcomes_->fail(index, "cannot publish to " + destination + ": " + e.what());
      finish(*outcomes_);
      return nullptr;
    }
  }

  // Waits for every republish in flight, reporting as they complete; the last report counts all
  // of them, also when the last ones completed before the wait began.
  void drain() {
    std::unique_lock lock(outcomes_->mutex);
    for (;;) {
      bool done = outcomes_->inFlight == 0;
      auto settled = outcomes_->confirmed + outcomes_->failed;
      lock.unlock();
      report(true);
      lock.lock();
      if (done) return;
      // A completion while reporting counts too: no wake-up is lost.
      outcomes_->changed.wait(lock, [&] {
        return outcomes_->inFlight == 0 || outcomes_->confirmed + outcomes_->failed != settled;
      });
    }
  }

  // Calls onProgress (outside the lock); with onlyIfChanged, not when the counts are those of the
  // previous report.
  void report(bool onlyIfChanged = false) {
    if (!options_.onProgress) return;
    ReplayProgress progress;
    {
      std::lock_guard lock(outcomes_->mutex);
      progress.total = replayable_.size();
      progress.confirmed = outcomes_->confirmed;
      progress.failed = outcomes_->failed;
    }
    std::pair counts{progress.confirmed, progress.failed};
    if (onlyIfChanged && reported_ == counts) return;
    reported_ = counts;
    progress.elapsed = since(*context_.clock, start_);
    options_.onProgress(progress);
  }

  static void closeQuietly(PickedReceiver& receiver) {
    try {
      receiver.close();
    } catch (const Error&) {
      // The broker gives back what the consumer held either way.
    }
  }

  static void closeQuietly(Producer& producer) {
    try {
      producer.close();
    } catch (const Error&) {
      // Every send already completed (drain); a failing close loses nothing.
    }
  }

  ReplayResult result() {
    ReplayResult result;
    std::lock_guard lock(outcomes_->mutex);
    bool stoppedEarly = !outcomes_->error.empty();
    for (auto& item : outcomes_->items) {
      if (item.outcome == ReplayOutcome::planned) {
        item.outcome = stoppedEarly ? ReplayOutcome::notAttempted : ReplayOutcome::missing;
      }
      switch (item.outcome) {
        case ReplayOutcome::replayed:
          ++result.replayed;
          break;
        case ReplayOutcome::skipped:
          ++result.skipped;
          break;
        case ReplayOutcome::failed:
          ++result.failed;
          break;
        case ReplayOutcome::missing:
          ++result.missing;
          break;
        case ReplayOutcome::notAttempted:
          ++result.notAttempted;
          break;
        case ReplayOutcome::planned:
          break;
      }
    }
    result.matched = outcomes_->items.size();
    result.items = outcomes_->items;
    result.error = outcomes_->error;
    result.elapsed = since(*context_.clock, start_);
    return result;
  }

  ActionContext& context_;
  const ReplayOptions& options_;
  const std::vector<std::string>& destinations_;
  std::shared_ptr<Outcomes> outcomes_;
  std::map<MessageId, std::size_t> indexOf_;
  std::vector<MessageId> replayable_;
  std::map<std::string, Producer> producers_;
  std::optional<TokenBucket> bucket_;
  Clock::time_point start_;
  std::optional<std::pair<std::size_t, std::size_t>> reported_;  // confirmed, failed
};

}  // namespace

ReplayResult replayPicked(ActionContext& context, const std::vector<DeadLetter>& picked,
                          const std::vector<std::string>& destinations,
                          const ReplayOptions& options) {
  if (options.dryRun) {
    ReplayResult result;
    result.dryRun = true;
    result.matched = picked.size();
    for (std::size_t i = 0; i < picked.size(); ++i) {
      ReplayItem item;
      item.deadLetterId = picked[i].id();
      item.destination = destinations[i];
      item.outcome = destinations[i].empty() ? ReplayOutcome::skipped : ReplayOutcome::planned;
      if (item.outcome == ReplayOutcome::skipped) ++result.skipped;
      result.items.push_back(std::move(item));
    }
    return result;
  }
  return Replayer(context, picked, destinations, options).run();
}

}  // namespace reconsume::detail::dlq
