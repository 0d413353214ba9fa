// Key_Shared: a consistent-hash ring maps each message's sticky key to one consumer, so a key
// stays with its consumer while the set of consumers is unchanged, and a joining or leaving
// consumer moves only its share of the keys. Each consumer has its own replay queue in entry
// order; a message for a consumer without permits waits there, and while that queue is not empty
// newer messages of its keys wait behind it, so per-key order holds.
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
      if (queue.empty()) continue;
      entry = *queue.begin();
      queue.erase(queue.begin());
      to = consumer;
      return true;
    }
    return false;
  }

  Pick pickNew(std::int64_t entry, ConsumerState*& to) override {
    auto* owner = ownerOf(entry);
    if (owner == nullptr) return Pick::stop;
    auto& queue = dropStale(waiting_[owner]);
    if (owner->permits > 0 && queue.empty()) {
      to = owner;
      return Pick::deliver;
    }
    queue.insert(entry);
    return Pick::queued;
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

  ConsumerState* ownerOf(std::int64_t entry) const {
    if (ring_.empty()) return nullptr;
    auto hash = stickyKeyHash(stickyKeyOf(*ledger_.at(entry).data));
    auto point = std::lower_bound(ring_.begin(), ring_.end(), hash,
                                  [](const auto& p, std::uint64_t h) { return p.first < h; });
    return point == ring_.end() ? ring_.front().second : point->second;
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
};

}  // namespace

std::unique_ptr<Dispatcher> makeKeySharedDispatcher(const Cursor& cursor, const Ledger& ledger) {
  return std::make_unique<KeySharedDispatcher>(cursor, ledger);
}

}  // namespace reconsume::detail::embedded
