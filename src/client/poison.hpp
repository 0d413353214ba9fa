// Poison messages (ConsumerOptions::maxRedeliverCount, SPEC.md section 1): which messages a
// consumer no longer hands back to its subscription, and where they go instead.
//
// The rule is the Java client's DeadLetterPolicy: a message handed to the application with a
// redelivery count >= N is remembered; when it would be redelivered (negative acknowledgement, ack
// timeout) it goes to the PoisonSink instead. A message that arrives with a count > N is not
// handed to the application at all.
//
// Thread safety: PoisonTracker's members may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "reconsume/message.hpp"

namespace reconsume::detail::client {

class ConsumerImpl;

// Takes a poison message off the subscription: dead-letters it, then acknowledges it on
// `consumer`; on failure gives it back (negative acknowledgement). Runs with no lock held.
class PoisonSink {
 public:
  virtual ~PoisonSink() = default;
  virtual void onPoison(const Message& message, const std::shared_ptr<ConsumerImpl>& consumer) = 0;
};

class PoisonTracker {
 public:
  // 0: off.
  explicit PoisonTracker(int maxRedeliverCount) : max_(maxRedeliverCount) {}

  bool enabled() const { return max_ > 0; }
  // Delivered more times than allowed: not for the application.
  bool overLimit(int redeliveryCount) const { return enabled() && redeliveryCount > max_; }
  // Handed to the application: remembered when its next redelivery would pass the limit.
  void handedOut(std::size_t slot, const Message& message) {
    if (!enabled() || message.redeliveryCount() < max_) return;
    std::lock_guard lock(mutex_);
    remembered_.emplace(std::pair{slot, message.id()}, message);
  }
  void forget(std::size_t slot, const MessageId& id) {
    if (!enabled()) return;
    std::lock_guard lock(mutex_);
    remembered_.erase({slot, id});
  }
  // Of `ids` about to be redelivered, removes and returns the remembered ones.
  std::vector<Message> take(std::size_t slot, std::vector<MessageId>& ids) {
    std::vector<Message> poison;
    if (!enabled()) return poison;
    std::lock_guard lock(mutex_);
    std::erase_if(ids, [&](const MessageId& id) {
      auto found = remembered_.find({slot, id});
      if (found == remembered_.end()) return false;
      poison.push_back(std::move(found->second));
      remembered_.erase(found);
      return true;
    });
    return poison;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    remembered_.clear();
  }

 private:
  const int max_;
  std::mutex mutex_;
  std::map<std::pair<std::size_t, MessageId>, Message> remembered_;
};

}  // namespace reconsume::detail::client
