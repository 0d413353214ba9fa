// How async operations hand their result to a completion handler: type-erase the handler (so the
// operation's body lives in the library, not in every user's template instantiation), keep its
// executor busy while the operation runs, and complete on that executor — by posting to it, or
// from a function already running there — never inside the call that started the operation,
// never while a lock of the library is held.
#pragma once

#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/execution/blocking.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/system/error_code.hpp>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace reconsume::detail {

template <typename Signature>
class Completion;

template <typename... Args>
class Completion<void(Args...)> {
 public:
  using Handler = boost::asio::any_completion_handler<void(Args...)>;

  // `handler` as the completion token made it, before it is type-erased: its executor is found
  // from its own type, so that the common case — no executor of its own, the client's I/O
  // executor — keeps that executor as it is (type-erasing it once more would cost allocations).
  template <typename ConcreteHandler>
  Completion(ConcreteHandler handler, const boost::asio::any_io_executor& fallback)
      : work_(tracked(boost::asio::get_associated_executor(handler, fallback))),
        handler_(std::move(handler)) {}

  // Posts the handler with `args` to its executor. Call exactly once (this or completeAfter).
  void complete(Args... args) {
    post([handler = std::move(handler_), ... values = std::move(args)]() mutable {
      std::move(handler)(std::move(values)...);
    });
  }

  // For a completion already running on a thread of `io` (a handler posted there, never inside
  // the call that started the operation): when the handler's executor is `io`'s own, the common
  // case, the handler runs here and now, as Asio's dispatch would; otherwise it is posted as by
  // complete(). Call exactly once (this, complete or completeAfter).
  void completeOn(const boost::asio::io_context& io, Args... args) {
    if (auto* work = std::get_if<0>(&work_)) {
      if (auto* target = work->template target<TrackedIoExecutor>();
          target && &target->context() == &io) {
        auto handler = std::move(handler_);
        std::move(handler)(std::move(args)...);
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
  void completeAfter(Last last) {
    post([handler = std::move(handler_), last = std::move(last)]() mutable {
      std::tuple<Args...> values = last();
      if (auto slot = handler.get_cancellation_slot(); slot.is_connected()) slot.clear();
      std::apply(std::move(handler), std::move(values));
    });
  }

  // The handler's cancellation slot (Asio per-operation cancellation); not connected when the
  // completion token has none.
  boost::asio::cancellation_slot cancellationSlot() const {
    return handler_.get_cancellation_slot();
  }

 private:
  // The handler's executor, kept busy until the handler ran: as any_io_executor when it is one
  // (or converts to one), else type-erased for completions.
  using Work = std::variant<boost::asio::any_io_executor, boost::asio::any_completion_executor>;
  // What the client's own I/O executor is inside an any_io_executor once work is tracked.
  using TrackedIoExecutor =
      decltype(boost::asio::prefer(std::declval<boost::asio::io_context::executor_type>(),
                                   boost::asio::execution::outstanding_work.tracked));

  // Posts `function` to the handler's executor, giving up the tracked work as it goes. The
  // common case, the client's I/O executor, is posted to directly: through the type-erased
  // executor the function would be wrapped once more (one allocation per completion more).
  template <typename Function>
  void post(Function function) {
    if (auto* io = std::get_if<0>(&work_)) {
      if (auto* target = io->template target<TrackedIoExecutor>()) {
        auto executor = boost::asio::prefer(*target, boost::asio::execution::blocking.never);
        executor.execute(std::move(function));
        *io = boost::asio::any_io_executor();  // the posted function keeps the context busy
        return;
      }
    }
    std::visit(
        [&](auto& work) {
          auto executor =
              boost::asio::prefer(std::move(work), boost::asio::execution::blocking.never);
          executor.execute(std::move(function));
        },
        work_);
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

  Work work_;
  Handler handler_;
};

}  // namespace reconsume::detail
