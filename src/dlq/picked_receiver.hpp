// The consumer replay and purge act through: on the dead-letter subscription (Shared, created at
// the earliest message when it does not exist), handing out only the messages a scan picked, each
// once. Every other message it receives stays unacknowledged and returns to the subscription when
// the consumer closes.
//
// Thread safety: next() from one thread at a time; consumer() may be used from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reconsume/client.hpp"

namespace reconsume::detail::dlq {

class PickedReceiver {
 public:
  PickedReceiver(Client& client, const std::string& topic, const std::string& subscription,
                 const std::vector<MessageId>& picked);
  ~PickedReceiver();
  PickedReceiver(const PickedReceiver&) = delete;
  PickedReceiver& operator=(const PickedReceiver&) = delete;

  // The next picked message; nothing when every picked message was handed out, or when none came
  // within `patience` (real time) — another consumer took or acknowledged it.
  std::optional<Message> next(std::chrono::milliseconds patience);
  Consumer& consumer() { return consumer_; }
  // Picked ids not handed out yet.
  const std::set<MessageId>& pending() const { return pending_; }
  // Closes the consumer: what it holds unacknowledged goes back to the subscription.
  void close();

 private:
  Consumer consumer_;
  std::set<MessageId> pending_;
  bool closed_ = false;
};

}  // namespace reconsume::detail::dlq
