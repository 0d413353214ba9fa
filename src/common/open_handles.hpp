// The objects something has opened and must end when it closes (a client its producers and
// consumers, a backend its handles), even when the layer above lost track of them. Held weakly:
// an object nobody uses any more is not kept alive by this list.
//
// Thread safety: every member may be called from any thread. closeAll hands the live objects
// back, so the caller ends them outside the lock.
#pragma once

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

namespace reconsume::detail {

template <typename T>
class OpenHandles {
 public:
  // False once closeAll ran: the caller must end `handle` itself.
  bool add(const std::shared_ptr<T>& handle) {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    if (handles_.size() >= compactAt_) {
      std::erase_if(handles_, [](const auto& weak) { return weak.expired(); });
      compactAt_ = std::max<std::size_t>(64, handles_.size() * 2);
    }
    handles_.push_back(handle);
    return true;
  }

  // Marks the list closed (later adds fail) and returns what is still alive; `first` (if given)
  // tells whether this call closed it (false: it was closed before, and nothing is returned).
  std::vector<std::shared_ptr<T>> closeAll(bool* first = nullptr) {
    std::vector<std::weak_ptr<T>> handles;
    {
      std::lock_guard lock(mutex_);
      if (first) *first = !closed_;
      closed_ = true;
      handles.swap(handles_);
    }
    std::vector<std::shared_ptr<T>> alive;
    for (auto& weak : handles) {
      if (auto handle = weak.lock()) alive.push_back(std::move(handle));
    }
    return alive;
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::size_t compactAt_ = 64;
  std::vector<std::weak_ptr<T>> handles_;
};

}  // namespace reconsume::detail
