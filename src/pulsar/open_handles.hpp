// The producers and consumers of one backend still open, so that closing the backend can end
// each of them (their operations complete with errc::closed) even when the layer above lost
// track of them. Held weakly: an object nobody uses any more is not kept alive by this list.
//
// Thread safety: every member may be called from any thread; shutdownAll runs the handles'
// shutdown outside the lock.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "common/status.hpp"

namespace reconsume::detail::pulsar {

class Handle {
 public:
  virtual ~Handle() = default;
  // Ends the object for good: every operation in flight and every later one fails with `why`.
  virtual void shutdown(const Status& why) = 0;
};

class OpenHandles {
 public:
  // False when the backend is closed already (the caller then shuts the handle down itself).
  bool add(const std::shared_ptr<Handle>& handle) {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    if (handles_.size() >= compactAt_) {
      std::erase_if(handles_, [](const auto& weak) { return weak.expired(); });
      compactAt_ = std::max<std::size_t>(64, handles_.size() * 2);
    }
    handles_.push_back(handle);
    return true;
  }

  void shutdownAll(const Status& why) {
    std::vector<std::weak_ptr<Handle>> handles;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      handles.swap(handles_);
    }
    for (auto& weak : handles) {
      if (auto handle = weak.lock()) handle->shutdown(why);
    }
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::size_t compactAt_ = 64;
  std::vector<std::weak_ptr<Handle>> handles_;
};

}  // namespace reconsume::detail::pulsar
