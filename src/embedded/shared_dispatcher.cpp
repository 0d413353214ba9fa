// Shared: messages go round-robin to the consumers that have permits; redelivered and newly due
// delayed messages wait in one replay queue, in entry order, and go first.
#include <set>

#include "embedded/dispatcher.hpp"

namespace reconsume::detail::embedded {

std::unique_ptr<Dispatcher> makeSharedDispatcher(const Cursor& cursor);

namespace {

class SharedDispatcher final : public Dispatcher {
 public:
  explicit SharedDispatcher(const Cursor& cursor) : cursor_(cursor) {}

  void consumersChanged(const std::vector<ConsumerState*>& consumers) override {
    consumers_ = consumers;
    if (next_ >= consumers_.size()) next_ = 0;
  }

  void addReplay(std::int64_t entry) override { replay_.insert(entry); }
  void clearReplay() override { replay_.clear(); }

  bool nextReplay(std::int64_t& entry, ConsumerState*& to) override {
    while (!replay_.empty() && cursor_.state(*replay_.begin()) != EntryState::replay) {
      replay_.erase(replay_.begin());
    }
    if (replay_.empty()) return false;
    to = nextWithPermits();
    if (to == nullptr) return false;
    entry = *replay_.begin();
    replay_.erase(replay_.begin());
    return true;
  }

  Pick pickNew(std::int64_t, ConsumerState*& to) override {
    to = nextWithPermits();
    return to != nullptr ? Pick::deliver : Pick::stop;
  }

 private:
  ConsumerState* nextWithPermits() {
    auto count = consumers_.size();
    for (std::size_t i = 0; i < count; ++i) {
      auto* candidate = consumers_[(next_ + i) % count];
      if (candidate->permits > 0) {
        next_ = (next_ + i + 1) % count;
        return candidate;
      }
    }
    return nullptr;
  }

  const Cursor& cursor_;
  std::vector<ConsumerState*> consumers_;
  std::size_t next_ = 0;
  std::set<std::int64_t> replay_;
};

}  // namespace

std::unique_ptr<Dispatcher> makeSharedDispatcher(const Cursor& cursor) {
  return std::make_unique<SharedDispatcher>(cursor);
}

}  // namespace reconsume::detail::embedded
