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
#include <thread>
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

// The waiter lives on the waiting thread's stack: wait() returns only after the callback ran,
// and the callback touches the waiter only while it holds the mutex (it notifies under it), so
// the waiter cannot be gone while the callback uses it. The callback captures one pointer, which
// std::function keeps without an allocation.
//
// A callback that runs on the waiting thread itself can only be running inside start() (the
// thread runs nothing else before wait(), and blocking calls are refused on the I/O threads): it
// completed inline, as embedded:// usually does, and neither locks nor wakes anyone.
template <typename... Results>
class SyncCall {
 public:
  SyncCall() = default;
  SyncCall(const SyncCall&) = delete;
  SyncCall& operator=(const SyncCall&) = delete;

  Callback<Results...> callback() {
    return [this](const Status& status, Results... results) {
      if (std::this_thread::get_id() == waiter_) {
        record(status, std::move(results)...);
        completedInline_ = true;
        return;
      }
      std::lock_guard lock(mutex_);
      record(status, std::move(results)...);
      done_ = true;
      ready_.notify_all();
    };
  }

  // Waits for the callback; throws the Error of a failed operation.
  std::tuple<Results...> wait() {
    if (!completedInline_) {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return done_; });
    }
    status_.raiseIfFailed();
    return std::move(*results_);
  }

 private:
  void record(const Status& status, Results... results) {
    status_ = status;
    if (status.ok()) results_.emplace(std::move(results)...);
  }

  const std::thread::id waiter_ = std::this_thread::get_id();
  bool completedInline_ = false;  // the waiting thread's own: set and read only there
  std::mutex mutex_;
  std::condition_variable ready_;
  bool done_ = false;
  Status status_;
  std::optional<std::tuple<Results...>> results_;
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
