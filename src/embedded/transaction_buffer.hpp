// A topic's side of transactions (Pulsar's TopicTransactionBuffer): the entries each open
// transaction published there, the read limit they impose, and the entries of aborted ones.
//
// Pulsar stores a transactional message in the topic at once but dispatches nothing at or after
// the first message of the oldest open transaction (its maxReadPosition), so a later message —
// transactional or not — waits until that transaction ends. Aborted messages stay stored but are
// never dispatched (Pulsar keeps an aborted-transaction index and skips them on read).
//
// Thread safety: none; the owning Topic guards it with its mutex.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "common/txn_id.hpp"
#include "embedded/coordinator.hpp"

namespace reconsume::detail::embedded {

class TransactionBuffer {
 public:
  // `entry` (the newest of the topic) was published in the open transaction `id`.
  void add(const TxnId& id, std::int64_t entry) {
    auto& entries = open_[id];
    if (entries.empty()) firsts_.insert(entry);
    entries.push_back(entry);
  }

  // Entries before the returned one may be dispatched: the first entry of the oldest open
  // transaction, or `end` (the ledger's end) when none is open here.
  std::int64_t readLimit(std::int64_t end) const {
    return firsts_.empty() ? end : std::min(end, *firsts_.begin());
  }

  // `id` ended: returns the entries it published here, in order (none when it published none).
  std::vector<std::int64_t> end(const TxnId& id) {
    auto found = open_.find(id);
    if (found == open_.end()) return {};
    auto entries = std::move(found->second);
    open_.erase(found);
    firsts_.erase(entries.front());
    return entries;
  }

  void markAborted(const std::vector<std::int64_t>& entries) {
    aborted_.insert(entries.begin(), entries.end());
  }
  bool aborted(std::int64_t entry) const { return aborted_.count(entry) != 0; }
  const std::set<std::int64_t>& abortedEntries() const { return aborted_; }

  // The ledger dropped the entries before `first`: nothing is read there any more.
  void forgetBefore(std::int64_t first) {
    aborted_.erase(aborted_.begin(), aborted_.lower_bound(first));
  }

 private:
  std::map<TxnId, std::vector<std::int64_t>, TxnIdLess> open_;
  std::set<std::int64_t> firsts_;  // the first entry of each open transaction
  std::set<std::int64_t> aborted_;
};

}  // namespace reconsume::detail::embedded
