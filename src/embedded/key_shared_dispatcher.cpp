// Key_Shared: a consistent-hash ring maps each message's sticky key to one consumer, so a key
// stays with its consumer while the set of consumers is unchanged, and a joining or leaving
// consumer moves only its share of the keys. Each consumer has its own replay queue in entry
// order; a message for a consumer without permits waits there, and while it holds a message of a
// key, newer messages of that key wait behind it, so per-key order holds.
//
// A key that moves while its old consumer still holds unacknowledged messages of it is
// draining, as in Pulsar 4.0 (PIP-379): its new consumer receives none of its messages until
// the old one acknowledged (or gave back) those, so one key is never being processed by two
// consumers at once, out of order. Other keys flow meanwhile.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "embedded/dispatcher.hpp"
#include "embedded/sticky_key.hpp"

namespace reconsume::detail::embedded {

std::unique_ptr<Dispatcher> makeKeySharedDispatcher(const Cursor& cursor, const Ledger& ledger);

namespace {

constexpr int kPointsPerConsumer = 100;

class KeySharedDispatcher final : public Dispatcher {
 public:
  KeySharedDispatcher(const Cursor& cursor, const Ledger& ledger)
      : cursor_(cursor), ledger_(ledger) {}

  void consumersChanged(const std::vector<ConsumerState*>& consumers) override {
    consumers_ = consumers;
    buildRing();
    findDraining();
    // Keys may have moved: queue what waits again, under the new owners.
    std::set<std::int64_t> waiting;
    for (auto& [consumer, entries] : waiting_) waiting.insert(entries.begin(), entries.end());
    waiting_.clear();
    for (auto entry : waiting) {
      if (cursor_.state(entry) == EntryState::replay) addReplay(entry);
    }
  }

  void addReplay(std::int64_t entry) override {
    if (auto* owner = ownerOf(entry)) waiting_[owner].insert(entry);
  }
  void clearReplay() override { waiting_.clear(); }

  bool nextReplay(std::int64_t& entry, ConsumerState*& to) override {
    for (auto* consumer : consumers_) {
      if (consumer->permits <= 0) continue;
      auto found = waiting_.find(consumer);
      if (found == waiting_.end()) continue;
      auto& queue = dropStale(found->second);
      // The oldest entry whose key is not draining: all of a key's entries wait alike, so
      // passing over a draining key keeps every key's order.
      for (auto it = queue.begin(); it != queue.end(); ++it) {
        if (cursor_.state(*it) != EntryState::replay || draining(keyHash(*it))) continue;
        entry = *it;
        queue.erase(it);
        to = consumer;
        return true;
      }
    }
    return false;
  }

  Pick pickNew(std::int64_t entry, ConsumerState*& to) override {
    auto* owner = ownerOf(entry);
    if (owner == nullptr) return Pick::stop;
    auto& queue = dropStale(waiting_[owner]);
    // Delivered now unless its key waits: an older entry of the key queued (no permits then),
    // or the key draining. Entries of other keys in the queue (draining ones) do not hold it.
    auto hash = keyHash(entry);
    if (owner->permits > 0 && !draining(hash) && !holdsKey(queue, hash)) {
      to = owner;
      return Pick::deliver;
    }
    queue.insert(entry);
    return Pick::queued;
  }

  bool waitsForAcknowledgements() override {
    for (auto it = draining_.begin(); it != draining_.end();) {
      auto hash = (it++)->first;  // draining() may erase the key it looks at
      draining(hash);
    }
    return !draining_.empty();
  }

 private:
  void buildRing() {
    ring_.clear();
    std::unordered_map<std::string, std::uint64_t> seen;  // consumers sharing a name
    for (auto* consumer : consumers_) {
      auto occurrence = seen[consumer->name]++;
      auto seed = stickyKeyHash(consumer->name) ^ mixBits(occurrence + 1);
      for (int i = 0; i < kPointsPerConsumer; ++i) {
        ring_.emplace_back(mixBits(seed + static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL),
                           consumer);
      }
    }
    std::sort(ring_.begin(), ring_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
  }

  std::uint64_t keyHash(std::int64_t entry) const {
    return stickyKeyHash(stickyKeyOf(*ledger_.at(entry).data));
  }

  ConsumerState* ownerOfHash(std::uint64_t hash) const {
    if (ring_.empty()) return nullptr;
    auto point = std::lower_bound(ring_.begin(), ring_.end(), hash,
                                  [](const auto& p, std::uint64_t h) { return p.first < h; });
    return point == ring_.end() ? ring_.front().second : point->second;
  }

  ConsumerState* ownerOf(std::int64_t entry) const { return ownerOfHash(keyHash(entry)); }

  bool holdsKey(const std::set<std::int64_t>& queue, std::uint64_t hash) const {
    return std::any_of(queue.begin(), queue.end(), [&](std::int64_t queued) {
      return cursor_.state(queued) == EntryState::replay && keyHash(queued) == hash;
    });
  }

  // After the ring changed: each key some consumer holds unacknowledged messages of while the
  // ring now gives it to another, with those messages.
  void findDraining() {
    draining_.clear();
    cursor_.forEachSlot([&](std::int64_t entry, const EntrySlot& slot) {
      if (slot.state != EntryState::pending) return;
      auto hash = keyHash(entry);
      auto* owner = ownerOfHash(hash);
      if (owner != nullptr && owner->id != slot.owner) draining_[hash].push_back(entry);
    });
  }

  // True while the old consumer of the key still holds a message of it; forgets the key once
  // it holds none (acknowledged, or given back for redelivery).
  bool draining(std::uint64_t hash) {
    auto found = draining_.find(hash);
    if (found == draining_.end()) return false;
    auto* owner = ownerOfHash(hash);
    auto& held = found->second;
    std::erase_if(held, [&](std::int64_t entry) {
      auto by = cursor_.pendingOwner(entry);
      return by == 0 || (owner != nullptr && by == owner->id);
    });
    if (!held.empty()) return true;
    draining_.erase(found);
    return false;
  }

  std::set<std::int64_t>& dropStale(std::set<std::int64_t>& queue) const {
    while (!queue.empty() && cursor_.state(*queue.begin()) != EntryState::replay) {
      queue.erase(queue.begin());
    }
    return queue;
  }

  const Cursor& cursor_;
  const Ledger& ledger_;
  std::vector<ConsumerState*> consumers_;
  std::vector<std::pair<std::uint64_t, ConsumerState*>> ring_;  // sorted by point
  std::unordered_map<ConsumerState*, std::set<std::int64_t>> waiting_;
  std::unordered_map<std::uint64_t, std::vector<std::int64_t>> draining_;  // key hash: held
};

}  // namespace

std::unique_ptr<Dispatcher> makeKeySharedDispatcher(const Cursor& cursor, const Ledger& ledger) {
  return std::make_unique<KeySharedDispatcher>(cursor, ledger);
}

}  // namespace reconsume::detail::embedded
