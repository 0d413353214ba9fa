// How async operations hand their result to a completion handler: type-erase the handler (so the
// operation's body lives in the library, not in every user's template instantiation), keep its
// executor busy while the operation runs, and complete on that executor — by posting to it, or
// from a function already running there — never inside the call that started the operation,
// never while a lock of the library is held.
#pragma once

#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/execution/blocking.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include "reconsume/detail/recycled_blocks.hpp"

namespace reconsume::detail {

template <typename Signature>
class Completion;

// A handle to one operation's completion: copies share it, so the library's internal callbacks
// (which must be copyable) capture it as it is. The handler, its executor's tracked work and its
// cancellation slot live in one heap object, allocated once per operation. (Asio's
// any_completion_handler plus a shared_ptr to hold it took two allocations, each made on the
// caller's thread and freed on the I/O thread: a third of the allocations of `reconsume perf`.)
// The object comes from the library's recycled blocks, not from the handler's associated
// allocator: a copy of this handle may outlive the handler's invocation, and an associated
// allocator need not.
template <typename... Args>
class Completion<void(Args...)> {
 public:
  // `handler` as the completion token made it: its executor is found from its own type, so that
  // the common case — no executor of its own, the client's I/O executor — keeps that executor as
  // it is (type-erasing it once more would cost allocations).
  template <typename ConcreteHandler>
  Completion(ConcreteHandler handler, const boost::asio::any_io_executor& fallback)
      : state_(makeState<ConcreteHandler>(std::move(handler), fallback)) {}

  // Posts the handler with `args` to its executor. Call exactly once, on one of the copies (this,
  // completeOn or completeAfter).
  void complete(Args... args) const {
    post([state = state_, ... values = std::move(args)]() mutable {
      state->invoke(std::move(values)...);
    });
  }

  // For a completion already running on a thread of `io` (a handler posted there, never inside
  // the call that started the operation): when the handler's executor is `io`'s own, the common
  // case, the handler runs here and now, as Asio's dispatch would; otherwise it is posted as by
  // complete(). Call exactly once (this, complete or completeAfter).
  void completeOn(const boost::asio::io_context& io, Args... args) const {
    if (auto* work = std::get_if<0>(&state_->work)) {
      if (auto* target = work->template target<TrackedIoExecutor>();
          target && &target->context() == &io) {
        state_->invoke(std::move(args)...);
        *work = boost::asio::any_io_executor();
        return;
      }
    }
    complete(std::move(args)...);
  }

  // Posts to the handler's executor: there `last()` returns the handler's arguments (a
  // std::tuple<Args...>), the cancellation slot is cleared, and the handler runs. What `last`
  // does is decided as late as possible, in the handler's own order of events: a cancellation
  // emitted on that executor before it ran is seen by it.
  template <typename Last>
  void completeAfter(Last last) const {
    post([state = state_, last = std::move(last)]() mutable {
      std::tuple<Args...> values = last();
      if (state->slot.is_connected()) state->slot.clear();
      std::apply([&](auto&... value) { state->invoke(std::move(value)...); }, values);
    });
  }

  // The handler's cancellation slot (Asio per-operation cancellation); not connected when the
  // completion token has none.
  boost::asio::cancellation_slot cancellationSlot() const { return state_->slot; }

 private:
  // The handler's executor, kept busy until the handler ran: as any_io_executor when it is one
  // (or converts to one), else type-erased for completions.
  using Work = std::variant<boost::asio::any_io_executor, boost::asio::any_completion_executor>;
  // What the client's own I/O executor is inside an any_io_executor once work is tracked.
  using TrackedIoExecutor =
      decltype(boost::asio::prefer(std::declval<boost::asio::io_context::executor_type>(),
                                   boost::asio::execution::outstanding_work.tracked));

  struct State {
    State(Work tracked, boost::asio::cancellation_slot handlerSlot)
        : work(std::move(tracked)), slot(std::move(handlerSlot)) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    virtual ~State() = default;
    // Runs the handler, which is destroyed as it returns — not when the last copy of the handle
    // goes, which may be later and on another thread.
    virtual void invoke(Args&&... args) = 0;

    Work work;
    boost::asio::cancellation_slot slot;
  };

  template <typename Handler>
  struct Holder final : State {
    Holder(Handler h, const boost::asio::any_io_executor& fallback)
        : State(tracked(boost::asio::get_associated_executor(h, fallback)),
                boost::asio::get_associated_cancellation_slot(h)),
          handler(std::move(h)) {}
    void invoke(Args&&... args) override {
      Handler running = std::move(*handler);
      handler.reset();
      std::move(running)(std::move(args)...);
    }
    std::optional<Handler> handler;
  };

  // Posts `function` to the handler's executor, giving up the tracked work as it goes. The
  // common case, the client's I/O executor, is posted to directly: through the type-erased
  // executor the function would be wrapped once more (one allocation per completion more).
  template <typename Function>
  void post(Function function) const {
    Work work = std::exchange(state_->work, Work());
    if (auto* io = std::get_if<0>(&work)) {
      if (auto* target = io->template target<TrackedIoExecutor>()) {
        auto executor = boost::asio::prefer(*target, boost::asio::execution::blocking.never);
        executor.execute(std::move(function));
        return;  // the posted function keeps the context busy; `work` is given up here
      }
    }
    std::visit(
        [&](auto& tracking) {
          auto executor =
              boost::asio::prefer(std::move(tracking), boost::asio::execution::blocking.never);
          executor.execute(std::move(function));
        },
        work);
  }

  // From the library's recycled blocks (recycled_blocks.hpp): the state is made on the caller's
  // thread and, most often, freed on the I/O thread.
  template <typename Handler>
  static std::shared_ptr<State> makeState(Handler handler,
                                          const boost::asio::any_io_executor& fallback) {
    if constexpr (alignof(Holder<Handler>) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
      return std::allocate_shared<Holder<Handler>>(RecyclingAllocator<Holder<Handler>>(),
                                                   std::move(handler), fallback);
    } else {
      return std::make_shared<Holder<Handler>>(std::move(handler), fallback);
    }
  }

  template <typename Executor>
  static Work tracked(const Executor& executor) {
    auto work = boost::asio::prefer(executor, boost::asio::execution::outstanding_work.tracked);
    if constexpr (std::is_convertible_v<decltype(work), boost::asio::any_io_executor>) {
      return Work(std::in_place_index<0>, std::move(work));
    } else {
      return Work(std::in_place_index<1>, std::move(work));
    }
  }

  std::shared_ptr<State> state_;
};

}  // namespace reconsume::detail
