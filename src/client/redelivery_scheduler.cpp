#include "client/redelivery_scheduler.hpp"

namespace reconsume::detail::client {

RedeliveryScheduler::RedeliveryScheduler(std::shared_ptr<Clock> clock, Redeliver redeliver)
    : clock_(std::move(clock)), redeliver_(std::move(redeliver)) {}

void RedeliveryScheduler::add(std::size_t slot, const MessageId& id, Clock::steady_time_point due) {
  std::lock_guard lock(mutex_);
  Key key{slot, id};
  if (auto found = byKey_.find(key); found != byKey_.end()) {
    byDue_.erase(found->second);
    byKey_.erase(found);
  }
  byKey_.emplace(key, byDue_.emplace(due, key));
  scheduled_.store(byKey_.size());
  armLocked();
}

bool RedeliveryScheduler::remove(std::size_t slot, const MessageId& id) {
  // Every acknowledgement asks; usually nothing is scheduled at all.
  if (scheduled_.load() == 0) return false;
  std::lock_guard lock(mutex_);
  auto found = byKey_.find(Key{slot, id});
  if (found == byKey_.end()) return false;
  byDue_.erase(found->second);
  byKey_.erase(found);
  scheduled_.store(byKey_.size());
  return true;
}

void RedeliveryScheduler::removeSlot(std::size_t slot) {
  std::lock_guard lock(mutex_);
  std::erase_if(byKey_, [&](const auto& entry) {
    if (entry.first.slot != slot) return false;
    byDue_.erase(entry.second);
    return true;
  });
  scheduled_.store(byKey_.size());
}

void RedeliveryScheduler::clear() {
  std::lock_guard lock(mutex_);
  byDue_.clear();
  byKey_.clear();
  scheduled_.store(0);
  if (timer_) clock_->cancel(*timer_);
  timer_.reset();
}

std::size_t RedeliveryScheduler::size() const {
  std::lock_guard lock(mutex_);
  return byKey_.size();
}

void RedeliveryScheduler::armLocked() {
  if (byDue_.empty()) return;
  auto earliest = byDue_.begin()->first;
  if (timer_ && armedFor_ <= earliest) return;  // an earlier or equal timer is armed already
  if (timer_) clock_->cancel(*timer_);
  armedFor_ = earliest;
  std::weak_ptr<RedeliveryScheduler> weak = weak_from_this();
  timer_ = clock_->scheduleSteady(earliest, [weak] {
    if (auto self = weak.lock()) self->fire();
  });
}

void RedeliveryScheduler::fire() {
  std::map<std::size_t, std::vector<MessageId>> due;
  {
    std::lock_guard lock(mutex_);
    timer_.reset();
    auto now = clock_->steadyNow();
    while (!byDue_.empty() && byDue_.begin()->first <= now) {
      auto key = byDue_.begin()->second;
      due[key.slot].push_back(key.id);
      byKey_.erase(key);
      byDue_.erase(byDue_.begin());
    }
    scheduled_.store(byKey_.size());
    armLocked();
  }
  for (auto& [slot, ids] : due) redeliver_(slot, std::move(ids));
}

}  // namespace reconsume::detail::client
