// One async receive that may be cancelled — by Asio per-operation cancellation or by its own
// timeout — without losing a message. The message is handed out (flow permits, ack timeout) only
// in the receive's last step, which runs where the handler runs, right before it: a receive
// cancelled before that step gives its message back to the front of the queue, and the next
// receive gets it. So `co_await (receive || timer)` never takes a message and drops it: when the
// timer wins, the receive's last step sees the cancellation and gives the message back.
//
// The receive holds its consumer weakly: waiting in the consumer's line, it must not keep the
// consumer alive once the application let go of it (the consumer's destructor closes its queue,
// and the receive completes with closed).
//
// Thread safety: cancel() may be called from any thread, at any time, any number of times.
#pragma once

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "client/consumer_impl.hpp"

namespace reconsume::detail::client {

class AsyncReceive : public std::enable_shared_from_this<AsyncReceive> {
 public:
  enum class Outcome { message, failed, cancelled, timedOut };
  struct Result {
    Outcome outcome = Outcome::message;
    Status status;  // failed: why
    Message message;
  };
  using Step = std::function<Result()>;
  // Called once, from any thread (possibly inside a backend's delivery: only post from it):
  // run `step` where the handler runs, then the handler with its Result.
  using Finish = std::function<void(Step step)>;

  AsyncReceive(std::shared_ptr<ConsumerImpl> consumer, Finish finish);
  // Starts waiting; with a timeout (real time), ends with Outcome::timedOut when no message came.
  // A receive cancelled before start() ends with Outcome::cancelled at once.
  void start(std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // Ends the receive with `why` (cancelled or timedOut) unless its message is handed out already.
  void cancel(Outcome why);

 private:
  static constexpr int kWaiting = 0;
  static constexpr int kHandedOut = -1;
  // Runs where the handler runs: hands the message out, or gives it back when cancelled.
  Result lastStep(const Status& status, ReceiveQueue::Item item);
  void startTimer(boost::asio::io_context& io, std::chrono::milliseconds timeout);
  static Status gone();
  void stopTimer();

  const std::weak_ptr<ConsumerImpl> consumer_;
  const Finish finish_;
  // kWaiting, kHandedOut, or the Outcome (as int) a cancel asked for.
  std::atomic<int> state_{kWaiting};
  std::atomic<ReceiveQueue::Ticket> ticket_{0};
  std::atomic<bool> waiting_{false};  // in the queue's line (start() got that far)
  // The timeout's timer, on a strand of the client's I/O context (a timer is not thread-safe).
  std::optional<boost::asio::strand<boost::asio::io_context::executor_type>> strand_;
  std::unique_ptr<boost::asio::steady_timer> timer_;
};

}  // namespace reconsume::detail::client
