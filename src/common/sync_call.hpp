// Blocking calls built on the internal async operations: start the operation with a callback,
// wait for it (no wait at all when the backend completed inline, as embedded:// usually does),
// then return the results or throw the Error. Never call a blocking function from a handler that
// runs on the client's executor: the operation may need that very thread to complete.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include "common/callback.hpp"

namespace reconsume::detail {

template <typename... Results>
class SyncCall {
 public:
  SyncCall() : state_(std::make_shared<State>()) {}

  Callback<Results...> callback() {
    return [state = state_](const Status& status, Results... results) {
      {
        std::lock_guard lock(state->mutex);
        state->status = status;
        if (status.ok()) state->results.emplace(std::move(results)...);
        state->done = true;
      }
      state->ready.notify_all();
    };
  }

  // Waits for the callback; throws the Error of a failed operation.
  std::tuple<Results...> wait() {
    std::unique_lock lock(state_->mutex);
    state_->ready.wait(lock, [&] { return state_->done; });
    state_->status.raiseIfFailed();
    return std::move(*state_->results);
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable ready;
    bool done = false;
    Status status;
    std::optional<std::tuple<Results...>> results;
  };
  std::shared_ptr<State> state_;
};

// Runs `start(callback)` and waits: `auto [id] = syncCall<MessageId>([&](auto cb) { ... });`
template <typename... Results, typename Start>
std::tuple<Results...> syncCall(Start&& start) {
  SyncCall<Results...> call;
  start(call.callback());
  return call.wait();
}

}  // namespace reconsume::detail
