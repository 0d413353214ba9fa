// Shared: messages go round-robin to the consumers that have permits; redelivered and newly due
// delayed messages wait in one replay queue, in entry order, and go first.
#include <algorithm>
#include <functional>
#include <vector>

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

  void addReplay(std::int64_t entry) override {
    replay_.push_back(entry);
    std::push_heap(replay_.begin(), replay_.end(), std::greater<>());
  }
  void clearReplay() override { replay_.clear(); }

  bool nextReplay(std::int64_t& entry, ConsumerState*& to) override {
    // An entry added twice, or no longer waiting (acknowledged, delivered from an earlier copy),
    // is dropped here: only one that is still to be replayed goes out.
    while (!replay_.empty() && cursor_.state(replay_.front()) != EntryState::replay) popReplay();
    if (replay_.empty()) return false;
    to = nextWithPermits();
    if (to == nullptr) return false;
    entry = replay_.front();
    popReplay();
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

  void popReplay() {
    std::pop_heap(replay_.begin(), replay_.end(), std::greater<>());
    replay_.pop_back();
  }

  const Cursor& cursor_;
  std::vector<ConsumerState*> consumers_;
  std::size_t next_ = 0;
  // The entries to replay, the lowest first (a min-heap): a std::set allocated a node for each
  // delayed message that fell due. It may hold an entry more than once (see nextReplay).
  std::vector<std::int64_t> replay_;
};

}  // namespace

std::unique_ptr<Dispatcher> makeSharedDispatcher(const Cursor& cursor) {
  return std::make_unique<SharedDispatcher>(cursor);
}

}  // namespace reconsume::detail::embedded
