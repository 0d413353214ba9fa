// Monotonic time for the network layer's timeouts, keep-alives and backoffs, behind an interface:
// the real steady clock in production, a ManualSteadyClock in tests, which then watch a send
// timeout or a reconnect backoff happen without waiting for it.
//
// A Timer is the network layer's only way to wait for a time: like Asio's steady_timer (arm with
// expiresAt/expiresAfter, asyncWait with any completion token, cancel), but on the clock it was
// made with. On the real clock it is a steady_timer underneath.
//
// Thread safety: SteadyClock::now and ManualSteadyClock::advance may be called from any thread. A
// Timer is used from one strand at a time, as an Asio I/O object is.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <memory>

namespace reconsume::detail {

class SteadyClock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;
  using Handler = boost::asio::any_completion_handler<void(boost::system::error_code)>;

  // One Timer's wait: completes the handler with success at `at`, or with operation_aborted when
  // cancelled or replaced by the next start. Handlers run on their associated executor (by
  // default the Timer's), never inside start or cancel.
  class Wait {
   public:
    virtual ~Wait() = default;
    virtual void start(time_point at, Handler handler) = 0;
    virtual void cancel() = 0;
  };

  virtual ~SteadyClock() = default;
  virtual time_point now() const = 0;
  virtual std::unique_ptr<Wait> makeWait(const boost::asio::any_io_executor& executor) = 0;

  // std::chrono::steady_clock, with Asio's steady_timer.
  static const std::shared_ptr<SteadyClock>& real();
};

class Timer {
 public:
  using time_point = SteadyClock::time_point;
  using duration = SteadyClock::duration;

  Timer(const boost::asio::any_io_executor& executor, std::shared_ptr<SteadyClock> clock);
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Sets when the next asyncWait completes; a wait in progress completes with operation_aborted.
  void expiresAt(time_point at);
  void expiresAfter(duration wait) { expiresAt(clock_->now() + wait); }
  time_point expiry() const { return expiry_; }
  // A wait in progress completes with operation_aborted.
  void cancel() { wait_->cancel(); }

  // Handler: void(boost::system::error_code).
  template <typename CompletionToken>
  auto asyncWait(CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, void(boost::system::error_code)>(
        [this](auto handler) { wait_->start(expiry_, SteadyClock::Handler(std::move(handler))); },
        token);
  }

  const std::shared_ptr<SteadyClock>& clock() const { return clock_; }

 private:
  std::shared_ptr<SteadyClock> clock_;
  std::unique_ptr<SteadyClock::Wait> wait_;
  time_point expiry_{};
};

// Time that moves only when a test says so. advance() completes every wait that fell due (posted
// to their executors, in order of due time); the handlers run when those executors run them.
class ManualSteadyClock final : public SteadyClock {
 public:
  ManualSteadyClock();
  ~ManualSteadyClock() override;

  time_point now() const override;
  std::unique_ptr<Wait> makeWait(const boost::asio::any_io_executor& executor) override;

  void advance(duration step);
  // How many waits are in progress.
  std::size_t pendingWaits() const;
  // Blocks (real time, at most `timeout`) until at least `count` waits are in progress: a test
  // learns that the code under test armed its timers before it moves the clock. False on timeout.
  bool waitForPendingWaits(std::size_t count, std::chrono::milliseconds timeout) const;

 private:
  struct Parked;
  struct State;
  class ManualWait;
  std::shared_ptr<State> state_;
};

}  // namespace reconsume::detail
