// Blocking calls built on the internal async operations: start the operation with a callback,
// wait for it (no wait at all when the backend completed inline, as embedded:// usually does),
// then return the results or throw the Error.
//
// A blocking call made on one of the client's I/O threads — from an async handler, which runs
// there by default — would wait for the very thread that has to complete it: on pulsar:// it
// hangs for ever, on embedded:// it would often complete inline and hide the bug until
// production. So every blocking call names itself (BlockingCall) and is refused on those threads,
// on both backends alike, before anything is started.
#pragma once

#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>

#include "common/callback.hpp"

namespace reconsume::detail {

// A blocking call of the public API and the I/O context whose threads complete what it waits for.
struct BlockingCall {
  boost::asio::io_context& io;
  std::string_view name;       // "Consumer::acknowledge"
  std::string_view asyncForm;  // "asyncAcknowledge"; empty when there is none
};

// Throws Error(errc::would_deadlock) naming the call when the calling thread is running `call.io`
// (a handler on one of the client's I/O threads).
void refuseOnIoThread(const BlockingCall& call);

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

// Refuses `call` on an I/O thread, else runs `start(callback)` and waits:
// `auto [id] = syncCall<MessageId>(call, [&](auto cb) { ... });`
template <typename... Results, typename Start>
std::tuple<Results...> syncCall(const BlockingCall& call, Start&& start) {
  refuseOnIoThread(call);
  SyncCall<Results...> waiter;
  start(waiter.callback());
  return waiter.wait();
}

}  // namespace reconsume::detail
