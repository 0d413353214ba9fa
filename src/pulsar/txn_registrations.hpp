// What one transaction has registered with its coordinator: the partitions it produces to
// (ADD_PARTITION_TO_TXN) or the subscriptions it acknowledges on (ADD_SUBSCRIPTION_TO_TXN), one
// table each. Each key is registered once: the first operation that needs it sends the request,
// later ones wait for that same answer — as the Java client keeps one future per topic. A failed
// registration is forgotten, so the next operation that needs it asks again (a coordinator takes
// a repeated registration as a no-op).
//
// Operations keep their order: after a successful answer the key counts as registered only once
// its waiters have run (answered() returns empty), and an operation that comes while they run
// waits behind them. Otherwise a send made as the answer arrives could find the topic registered
// and be written before the sends that waited for it.
//
// Sans-I/O: it keeps the table and hands back the waiters for the caller to run.
// Thread safety: not synchronised; the transaction guards it with its mutex.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace reconsume::detail::pulsar {

class TxnRegistrations {
 public:
  using Waiter = std::function<void(const Status&)>;

  enum class Begin {
    registered,  // done before: `waiter` was not kept, run it now with ok
    wait,        // a registration is in flight: `waiter` runs with its answer
    send,        // the first: send the registration, then call finish(); `waiter` was kept
  };
  Begin begin(const std::string& key, Waiter waiter);

  // The answer to the registration of `key`: the waiters to run with `status`. After a success,
  // call answered() once they ran, until it returns none.
  std::vector<Waiter> finish(const std::string& key, const Status& status);
  // The waiters that came while those of a successful answer ran, to run next with ok; none
  // when there are no more, and from then on `key` is registered.
  std::vector<Waiter> answered(const std::string& key);

  bool registered(const std::string& key) const;
  std::size_t registeredCount() const;

 private:
  enum class State {
    asked,      // the registration is in flight
    answering,  // answered with success, its waiters running
    registered,
  };
  struct Entry {
    State state = State::asked;
    std::vector<Waiter> waiters;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace reconsume::detail::pulsar
