#include "client/ack_grouper.hpp"

namespace reconsume::detail::client {

AckGrouper::AckGrouper(const boost::asio::any_io_executor& executor,
                       std::shared_ptr<SteadyClock> clock, std::chrono::milliseconds groupTime,
                       Flush flush)
    : groupTime_(groupTime), flush_(std::move(flush)), timer_(executor, std::move(clock)) {
  heldIds_.reserve(kMaxGroupSize);
}

AckGrouper::~AckGrouper() {
  if (!held_.empty()) flush_(held_);
}

void AckGrouper::add(Held ack) {
  std::vector<Held> full;
  {
    std::lock_guard lock(mutex_);
    heldIds_.insert({ack.slot, ack.message.id()});
    held_.push_back(std::move(ack));
    heldCount_.store(held_.size(), std::memory_order_release);
    if (held_.size() >= kMaxGroupSize) {
      full = takeLocked();
    } else {
      armLocked();
    }
  }
  if (!full.empty()) handOn(std::move(full));
}

AckGrouper::HeldView::HeldView(const AckGrouper& grouper) : grouper_(&grouper) {
  if (grouper.heldCount_.load(std::memory_order_acquire) > 0) {
    lock_ = std::unique_lock<std::mutex>(grouper.mutex_);
  }
}

void AckGrouper::flushNow() {
  std::vector<Held> group;
  {
    std::lock_guard lock(mutex_);
    group = takeLocked();
  }
  if (!group.empty()) handOn(std::move(group));
}

void AckGrouper::handOn(std::vector<Held> group) {
  flush_(group);
  group.clear();
  std::lock_guard lock(mutex_);
  if (group.capacity() > spare_.capacity()) spare_ = std::move(group);
}

std::size_t AckGrouper::size() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

void AckGrouper::armLocked() {
  if (armed_) return;  // the group's first acknowledgement armed it
  armed_ = true;
  timer_.expiresAfter(groupTime_);
  timer_.asyncWait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->flushNow();
  });
}

std::vector<AckGrouper::Held> AckGrouper::takeLocked() {
  if (armed_) timer_.cancel();
  armed_ = false;
  heldIds_.clear();  // keeps its capacity
  heldCount_.store(0, std::memory_order_release);
  auto taken = std::exchange(held_, std::exchange(spare_, {}));
  held_.reserve(taken.size());  // the next group is likely as big: no regrowth
  return taken;
}

}  // namespace reconsume::detail::client
