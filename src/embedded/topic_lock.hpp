// The lock of a topic, and work deferred until the current thread holds no topic lock.
//
// Sinks run under a topic's lock. A sink may, without calling the broker, drop the last reference
// to a producer or consumer handle (say, the layer above's own consumer object dies inside its
// sink); the handle's teardown must then wait until this thread has left the broker, or it would
// lock a topic this thread already holds. Handles pass their teardown to runOutsideTopicLocks.
//
// Thread safety: the deferred work is per thread; it runs on the thread that deferred it.
#pragma once

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace reconsume::detail::embedded {

class TopicLock {
 public:
  explicit TopicLock(std::mutex& mutex) : lock_(mutex) { ++state().depth; }
  ~TopicLock() {
    lock_.unlock();
    if (--state().depth == 0) runDeferred();
  }
  TopicLock(const TopicLock&) = delete;
  TopicLock& operator=(const TopicLock&) = delete;

  // Runs `work` now, or — when this thread holds a topic's lock — as soon as it holds none.
  static void runOutsideTopicLocks(std::function<void()> work) {
    if (state().depth > 0) {
      state().deferred.push_back(std::move(work));
    } else {
      work();
    }
  }

 private:
  struct ThreadState {
    int depth = 0;
    std::vector<std::function<void()>> deferred;
  };
  static ThreadState& state() {
    thread_local ThreadState instance;
    return instance;
  }
  // Deferred work may defer more (it may take topic locks and run sinks): run until none is left.
  static void runDeferred() {
    while (!state().deferred.empty()) {
      auto batch = std::move(state().deferred);
      state().deferred.clear();
      for (auto& work : batch) work();
    }
  }

  std::unique_lock<std::mutex> lock_;
};

}  // namespace reconsume::detail::embedded
