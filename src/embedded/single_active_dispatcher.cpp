// Exclusive and Failover: one consumer receives everything. Redelivery on these types is a
// rewind of the cursor (the Subscription does it), so there is no replay queue.
#include <algorithm>

#include "embedded/dispatcher.hpp"
#include "embedded/failover_choice.hpp"

namespace reconsume::detail::embedded {

std::unique_ptr<Dispatcher> makeSingleActiveDispatcher(std::string topic, int partition);

namespace {

class SingleActiveDispatcher final : public Dispatcher {
 public:
  SingleActiveDispatcher(std::string topic, int partition)
      : topic_(std::move(topic)), partition_(partition) {}

  // As the Pulsar broker picks (failover_choice.hpp): by the consumers' names, so the same
  // consumers pick the same active one whatever the order they joined in.
  void consumersChanged(const std::vector<ConsumerState*>& consumers) override {
    if (consumers.empty()) {
      active_ = nullptr;
      return;
    }
    auto sorted = consumers;
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const ConsumerState* a, const ConsumerState* b) { return a->name < b->name; });
    std::vector<std::string_view> names;
    names.reserve(sorted.size());
    for (const auto* consumer : sorted) names.emplace_back(consumer->name);
    active_ = sorted[failoverActiveIndex(topic_, partition_, names)];
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
  std::string topic_;
  int partition_;
  ConsumerState* active_ = nullptr;
};

}  // namespace

std::unique_ptr<Dispatcher> makeSingleActiveDispatcher(std::string topic, int partition) {
  return std::make_unique<SingleActiveDispatcher>(std::move(topic), partition);
}

}  // namespace reconsume::detail::embedded
