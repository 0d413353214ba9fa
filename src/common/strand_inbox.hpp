// Work handed to a strand (or an I/O context) from other threads, one post per burst instead of
// one per item: the first item added to an empty inbox asks its caller to post a drain; items
// added before that drain runs ride along with it. A sender thread and the I/O thread then meet
// once per burst, where a post per message costs an allocation and often a wake-up of the I/O
// thread each.
//
// Thread safety: push() from any thread; take() where the posted drain runs.
#pragma once

#include <mutex>
#include <utility>
#include <vector>

namespace reconsume::detail {

template <typename Item>
class StrandInbox {
 public:
  // Adds `item`; true when the caller must post a drain (none is pending).
  bool push(Item item) { return emplace(std::move(item)); }
  // The same, the item made in place from `args` (one move less of what they hold).
  template <typename... Args>
  bool emplace(Args&&... args) {
    std::lock_guard lock(mutex_);
    items_.emplace_back(std::forward<Args>(args)...);
    if (drainPosted_) return false;
    drainPosted_ = true;
    return true;
  }

  // Everything added so far, in order, into `out` (which should be empty; its capacity is
  // reused, so a drain that runs often allocates nothing).
  void take(std::vector<Item>& out) {
    std::lock_guard lock(mutex_);
    drainPosted_ = false;
    out.swap(items_);
  }

 private:
  std::mutex mutex_;
  std::vector<Item> items_;
  bool drainPosted_ = false;
};

}  // namespace reconsume::detail
