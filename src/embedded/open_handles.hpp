// What one embedded Backend has opened (producers, consumers), so Backend::close and the
// Backend's destructor can close them. Holds them weakly: a handle the layer above dropped is
// already closed.
//
// Thread safety: every member may be called from any thread; handles are closed outside the lock.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace reconsume::detail::embedded {

class Closable {
 public:
  virtual ~Closable() = default;
  // Detaches from the broker; idempotent.
  virtual void closeNow() = 0;
};

class OpenHandles {
 public:
  // False once closeAll() ran: the caller must close `handle` itself.
  bool add(std::uint64_t id, std::weak_ptr<Closable> handle) {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    open_.emplace(id, std::move(handle));
    return true;
  }

  void remove(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    open_.erase(id);
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

  void closeAll() {
    std::vector<std::shared_ptr<Closable>> open;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      for (auto& [id, handle] : open_) {
        if (auto live = handle.lock()) open.push_back(std::move(live));
      }
      open_.clear();
    }
    for (auto& handle : open) handle->closeNow();
  }

 private:
  mutable std::mutex mutex_;
  bool closed_ = false;
  std::unordered_map<std::uint64_t, std::weak_ptr<Closable>> open_;
};

}  // namespace reconsume::detail::embedded
