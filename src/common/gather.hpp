// Runs several async operations and completes once all have: with their results in order, or
// with the first failure.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "common/callback.hpp"

namespace reconsume::detail {

template <typename T>
class Gather : public std::enable_shared_from_this<Gather<T>> {
 public:
  using Done = std::function<void(const Status&, std::vector<T>)>;

  // Calls `done` after `count` completions (at once when count is 0).
  static std::shared_ptr<Gather> start(std::size_t count, Done done) {
    auto gather = std::shared_ptr<Gather>(new Gather(count, std::move(done)));
    if (count == 0) gather->finish();
    return gather;
  }

  // The callback for operation `index`.
  Callback<T> slot(std::size_t index) {
    return [self = this->shared_from_this(), index](const Status& status, T value) {
      bool last;
      {
        std::lock_guard lock(self->mutex_);
        if (status.ok()) {
          self->results_[index] = std::move(value);
        } else if (self->failure_.ok()) {
          self->failure_ = status;
        }
        last = --self->remaining_ == 0;
      }
      if (last) self->finish();
    };
  }

 private:
  Gather(std::size_t count, Done done)
      : results_(count), remaining_(count), done_(std::move(done)) {}
  void finish() { done_(failure_, std::move(results_)); }

  std::mutex mutex_;
  std::vector<T> results_;
  std::size_t remaining_;
  Status failure_;
  Done done_;
};

// Gathers operations without results.
inline Callback<> countDown(std::size_t count, Callback<> done) {
  if (count == 0) {
    done({});
    return [](const Status&) {};
  }
  struct State {
    std::mutex mutex;
    std::size_t remaining;
    Status failure;
    Callback<> done;
  };
  auto state = std::make_shared<State>();
  state->remaining = count;
  state->done = std::move(done);
  return [state](const Status& status) {
    bool last;
    {
      std::lock_guard lock(state->mutex);
      if (!status.ok() && state->failure.ok()) state->failure = status;
      last = --state->remaining == 0;
    }
    if (last) state->done(state->failure);
  };
}

}  // namespace reconsume::detail
