// What one transaction has registered with its coordinator: the partitions it produces to
// (ADD_PARTITION_TO_TXN) or the subscriptions it acknowledges on (ADD_SUBSCRIPTION_TO_TXN), one
// table each. Each key is registered once: the first operation that needs it sends the request,
// later ones wait for that same answer — as the Java client keeps one future per topic. A failed
// registration is forgotten, so the next operation that needs it asks again (a coordinator takes
// a repeated registration as a no-op).
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

  // The answer to the registration of `key`: the waiters to run with `status`.
  std::vector<Waiter> finish(const std::string& key, const Status& status);

  bool registered(const std::string& key) const;
  std::size_t registeredCount() const;

 private:
  struct Entry {
    bool done = false;
    std::vector<Waiter> waiters;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace reconsume::detail::pulsar
