#include "pulsar/txn_registrations.hpp"

#include <algorithm>
#include <utility>

namespace reconsume::detail::pulsar {

TxnRegistrations::Begin TxnRegistrations::begin(const std::string& key, Waiter waiter) {
  auto [entry, inserted] = entries_.try_emplace(key);
  if (entry->second.done) return Begin::registered;
  entry->second.waiters.push_back(std::move(waiter));
  return inserted ? Begin::send : Begin::wait;
}

std::vector<TxnRegistrations::Waiter> TxnRegistrations::finish(const std::string& key,
                                                               const Status& status) {
  auto found = entries_.find(key);
  if (found == entries_.end() || found->second.done) return {};
  if (found->second.answering) return {};  // a stale answer while the first one's waiters run
  auto waiters = std::move(found->second.waiters);
  if (status.ok()) {
    found->second = Entry{.answering = true};
  } else {
    entries_.erase(found);
  }
  return waiters;
}

std::vector<TxnRegistrations::Waiter> TxnRegistrations::answered(const std::string& key) {
  auto found = entries_.find(key);
  if (found == entries_.end() || !found->second.answering) return {};
  auto waiters = std::exchange(found->second.waiters, {});
  if (waiters.empty()) found->second = Entry{.done = true};
  return waiters;
}

bool TxnRegistrations::registered(const std::string& key) const {
  auto found = entries_.find(key);
  return found != entries_.end() && found->second.done;
}

std::size_t TxnRegistrations::registeredCount() const {
  return static_cast<std::size_t>(std::count_if(
      entries_.begin(), entries_.end(), [](const auto& entry) { return entry.second.done; }));
}

}  // namespace reconsume::detail::pulsar
