// How async operations hand their result to a completion handler: type-erase the handler (so the
// operation's body lives in the library, not in every user's template instantiation), keep its
// executor busy while the operation runs, and complete by posting to that executor — never
// inside the call that started the operation, never while a lock of the library is held.
#pragma once

#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/execution/blocking.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/system/error_code.hpp>
#include <utility>

namespace reconsume::detail {

template <typename Signature>
class Completion;

template <typename... Args>
class Completion<void(Args...)> {
 public:
  using Handler = boost::asio::any_completion_handler<void(Args...)>;

  Completion(Handler handler, const boost::asio::any_io_executor& fallback)
      : work_(boost::asio::prefer(boost::asio::get_associated_executor(handler, fallback),
                                  boost::asio::execution::outstanding_work.tracked)),
        handler_(std::move(handler)) {}

  // Posts the handler with `args` to its executor. Call exactly once.
  void complete(Args... args) {
    auto executor = boost::asio::prefer(std::move(work_), boost::asio::execution::blocking.never);
    executor.execute([handler = std::move(handler_), ... values = std::move(args)]() mutable {
      std::move(handler)(std::move(values)...);
    });
  }

 private:
  boost::asio::any_completion_executor work_;
  Handler handler_;
};

}  // namespace reconsume::detail
