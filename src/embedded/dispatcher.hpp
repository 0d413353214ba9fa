// Who receives a subscription's messages, one strategy per subscription type (Pulsar's
// dispatchers): a single active consumer (Exclusive, Failover), round-robin (Shared), or by key
// (Key_Shared). The Subscription drives them: it reads entries in order and asks the dispatcher
// where each goes; entries to be delivered again wait in the dispatcher's replay queue and go
// first.
//
// Thread safety: none; the owning Topic guards it with its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client/backend.hpp"
#include "embedded/cursor.hpp"
#include "embedded/ledger.hpp"

namespace reconsume::detail::embedded {

// A consumer attached to a subscription, as the dispatchers see it.
struct ConsumerState {
  std::uint64_t id{0};
  std::string name;
  std::shared_ptr<client::MessageSink> sink;
  std::int64_t permits{0};
  int receiverQueueSize{0};
  bool endedNotified{false};  // told the topic ended (terminated, everything acknowledged)
};

class Dispatcher {
 public:
  enum class Pick {
    deliver,  // to the consumer returned
    queued,   // kept in the replay queue for a consumer that has no permits now (Key_Shared)
    stop,     // no consumer can take it now; read no further
  };

  virtual ~Dispatcher() = default;

  // The attached consumers, in the order they connected, after one joined or left.
  virtual void consumersChanged(const std::vector<ConsumerState*>& consumers) = 0;
  // Exclusive and Failover: the consumer that receives everything (nullptr for the others).
  virtual ConsumerState* active() const { return nullptr; }

  // Shared and Key_Shared: entries (in state replay) to deliver before any unread one.
  virtual void addReplay(std::int64_t entry) = 0;
  virtual void clearReplay() = 0;
  // Takes the next replay entry that a consumer with permits can have now; false when none.
  // Entries no longer in state replay (acknowledged meanwhile) are dropped on the way.
  virtual bool nextReplay(std::int64_t& entry, ConsumerState*& to) = 0;

  // Where the unread `entry` goes.
  virtual Pick pickNew(std::int64_t entry, ConsumerState*& to) = 0;

  // True while entries wait for acknowledgements of others (Key_Shared's draining keys): the
  // subscription dispatches again after each acknowledgement then.
  virtual bool waitsForAcknowledgements() { return false; }
};

// `topic` is the topic's full name and `partition` its partition index (-1 when not
// partitioned): Failover picks its active consumer with them, as Pulsar does.
std::unique_ptr<Dispatcher> makeDispatcher(SubscriptionType type, const std::string& topic,
                                           int partition, const Cursor& cursor,
                                           const Ledger& ledger);

}  // namespace reconsume::detail::embedded
