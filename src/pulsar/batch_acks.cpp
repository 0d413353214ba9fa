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
  // The broker's word on the indexes this consumer did not acknowledge itself: acknowledged
  // elsewhere meanwhile (batch-index acknowledgement by another consumer, or inside an open
  // transaction), or open again (that transaction aborted).
  for (int index = 0; index < fresh->batchSize(); ++index) {
    if (fresh->isAcknowledgedHere(index)) {
      known->acknowledge(index);  // compacted out: nothing to deliver
    } else if (fresh->isAcknowledgedElsewhere(index)) {
      known->acknowledgedElsewhere(index);
    } else {
      known->reopen(index);
    }
  }
  if (known->complete()) {
    partial_.erase(entry);
    live_.erase(entry);
  }
  return known;
}

BatchAcks::Outcome BatchAcks::acknowledge(Entry entry, const std::shared_ptr<Tracker>& tracker,
                                          int index) {
  if (tracker->isAcknowledgedHere(index)) return Outcome::already;
  tracker->acknowledge(index);
  if (tracker->complete()) {
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
