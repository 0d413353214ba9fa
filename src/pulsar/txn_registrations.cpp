#include "pulsar/txn_registrations.hpp"

#include <algorithm>
#include <utility>

namespace reconsume::detail::pulsar {

TxnRegistrations::Begin TxnRegistrations::begin(const std::string& key, Waiter waiter) {
  auto [entry, inserted] = entries_.try_emplace(key);
  if (entry->second.state == State::registered) return Begin::registered;
  entry->second.waiters.push_back(std::move(waiter));
  return inserted ? Begin::send : Begin::wait;
}

std::vector<TxnRegistrations::Waiter> TxnRegistrations::finish(const std::string& key,
                                                               const Status& status) {
  auto found = entries_.find(key);
  // A stale answer: the key is registered, or the first answer's waiters are running.
  if (found == entries_.end() || found->second.state != State::asked) return {};
  auto waiters = std::move(found->second.waiters);
  if (status.ok()) {
    found->second.state = State::answering;
  } else {
    entries_.erase(found);
  }
  return waiters;
}

std::vector<TxnRegistrations::Waiter> TxnRegistrations::answered(const std::string& key) {
  auto found = entries_.find(key);
  if (found == entries_.end() || found->second.state != State::answering) return {};
  auto waiters = std::exchange(found->second.waiters, {});
  if (waiters.empty()) found->second.state = State::registered;
  return waiters;
}

bool TxnRegistrations::registered(const std::string& key) const {
  auto found = entries_.find(key);
  return found != entries_.end() && found->second.state == State::registered;
}

std::size_t TxnRegistrations::registeredCount() const {
  return static_cast<std::size_t>(
      std::count_if(entries_.begin(), entries_.end(),
                    [](const auto& entry) { return entry.second.state == State::registered; }));
}

}  // namespace reconsume::detail::pulsar
