// Exclusive and Failover: one consumer receives everything. Redelivery on these types is a
// rewind of the cursor (the Subscription does it), so there is no replay queue.
#include <algorithm>

#include "embedded/dispatcher.hpp"

namespace reconsume::detail::embedded {

std::unique_ptr<Dispatcher> makeSingleActiveDispatcher(int partition);

namespace {

class SingleActiveDispatcher final : public Dispatcher {
 public:
  explicit SingleActiveDispatcher(int partition) : partition_(partition) {}

  // Pulsar: on a non-partitioned topic the first consumer connected is active; on a partition,
  // consumers sorted by name take partitions in turn (partition index modulo their number), so
  // the partitions of a topic spread over the consumers.
  void consumersChanged(const std::vector<ConsumerState*>& consumers) override {
    if (consumers.empty()) {
      active_ = nullptr;
    } else if (partition_ < 0) {
      active_ = consumers.front();
    } else {
      auto sorted = consumers;
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [](const ConsumerState* a, const ConsumerState* b) { return a->name < b->name; });
      active_ = sorted[static_cast<std::size_t>(partition_) % sorted.size()];
    }
  }
  ConsumerState* active() const override { return active_; }

  void addReplay(std::int64_t) override {}
  void clearReplay() override {}
  bool nextReplay(std::int64_t&, ConsumerState*&) override { return false; }

  Pick pickNew(std::int64_t, ConsumerState*& to) override {
    if (active_ == nullptr || active_->permits <= 0) return Pick::stop;
    to = active_;
    return Pick::deliver;
  }

 private:
  int partition_;
  ConsumerState* active_ = nullptr;
};

}  // namespace

std::unique_ptr<Dispatcher> makeSingleActiveDispatcher(int partition) {
  return std::make_unique<SingleActiveDispatcher>(partition);
}

}  // namespace reconsume::detail::embedded
