#include "pulsar/batch_acks.hpp"

#include <algorithm>

namespace reconsume::detail::pulsar {

std::shared_ptr<BatchAcks::Tracker> BatchAcks::trackerFor(Entry entry,
                                                          std::shared_ptr<Tracker> fresh) {
  std::shared_ptr<Tracker> known;
  if (auto found = partial_.find(entry); found != partial_.end()) {
    known = found->second;
  } else if (auto live = live_.find(entry); live != live_.end()) {
    known = live->second.lock();
  }
  if (!known || known->batchSize() != fresh->batchSize()) {
    if (live_.size() >= compactAt_) compact();
    live_[entry] = fresh;
    return fresh;
  }
  // Acknowledged elsewhere meanwhile (batch-index acknowledgement by another client): keep it.
  for (int index = 0; index < fresh->batchSize(); ++index) {
    if (fresh->isAcknowledged(index)) known->acknowledge(index);
  }
  if (known->complete()) {
    partial_.erase(entry);
    live_.erase(entry);
  }
  return known;
}

BatchAcks::Outcome BatchAcks::acknowledge(Entry entry, const std::shared_ptr<Tracker>& tracker,
                                          int index) {
  if (tracker->isAcknowledged(index)) return Outcome::already;
  if (tracker->acknowledge(index)) {
    partial_.erase(entry);
    live_.erase(entry);
    return Outcome::complete;
  }
  partial_[entry] = tracker;
  return Outcome::recorded;
}

void BatchAcks::compact() {
  std::erase_if(live_, [](const auto& item) { return item.second.expired(); });
  compactAt_ = std::max<std::size_t>(1024, live_.size() * 2);
}

}  // namespace reconsume::detail::pulsar
