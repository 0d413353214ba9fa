// Clocks: the time that delayed delivery, ack timeouts, negative-ack delays and publish times run
// on. The embedded broker and the consumer's redelivery timers read time and arm timers only
// through a Clock, so a test that passes a ManualClock decides when "two hours later" is.
// Timeouts of blocking calls (receive, readNext) always run on real time.
//
// Two kinds of time. now() and schedule() are wall-clock time: a message's publish time and its
// deliverAt. steadyNow() and scheduleSteady() are monotonic: waits of a length (negative-ack
// delay, ack timeout, a transaction's timeout) run on them, so setting the wall clock (an NTP
// step) neither fires them early nor holds them back.
//
// Thread safety: every member of every clock may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace reconsume {

class Clock {
 public:
  using time_point = std::chrono::system_clock::time_point;
  using steady_time_point = std::chrono::steady_clock::time_point;
  using TimerId = std::uint64_t;

  virtual ~Clock() = default;
  virtual time_point now() const = 0;

  // Runs `fn` once, when now() has reached `at`, on a thread of the clock's choosing (SystemClock:
  // its timer thread; ManualClock: the thread that calls advance or set). No lock of the clock is
  // held while `fn` runs, so `fn` may schedule or cancel timers. Returns an id for cancel().
  virtual TimerId schedule(time_point at, std::function<void()> fn) = 0;

  // Cancels a timer (of either kind) that has not started running; returns false when it already
  // ran or started.
  virtual bool cancel(TimerId id) = 0;

  // Monotonic time. Default: std::chrono::steady_clock.
  virtual steady_time_point steadyNow() const { return std::chrono::steady_clock::now(); }
  // Runs `fn` once, when steadyNow() has reached `at`, as schedule() does for now(). Default (a
  // clock that implements only the wall-clock members): schedule(now() + (at - steadyNow())).
  virtual TimerId scheduleSteady(steady_time_point at, std::function<void()> fn) {
    return schedule(
        now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(at - steadyNow()),
        std::move(fn));
  }
};

// Real wall-clock time; timers run on one background thread, started with the first timer.
class SystemClock final : public Clock {
 public:
  SystemClock();
  ~SystemClock() override;
  SystemClock(const SystemClock&) = delete;
  SystemClock& operator=(const SystemClock&) = delete;

  time_point now() const override;
  TimerId schedule(time_point at, std::function<void()> fn) override;
  bool cancel(TimerId id) override;
  TimerId scheduleSteady(steady_time_point at, std::function<void()> fn) override;

  // The process-wide instance used when ClientOptions::clock is null.
  static std::shared_ptr<SystemClock> shared();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Time that moves only when told to. advance() and set() move wall and monotonic time together and
// run every timer of either kind that falls due, in order of due time, on the calling thread;
// while a timer runs, now() and steadyNow() read its due time, so work it triggers sees the time
// it was meant for. stepWallClock() moves the wall time alone, as an NTP step does.
class ManualClock final : public Clock {
 public:
  // Starts at `start` (default: 2024-01-01T00:00:00Z, so tests are reproducible).
  explicit ManualClock(time_point start = defaultStart());
  ~ManualClock() override;

  time_point now() const override;
  TimerId schedule(time_point at, std::function<void()> fn) override;
  bool cancel(TimerId id) override;
  steady_time_point steadyNow() const override;
  TimerId scheduleSteady(steady_time_point at, std::function<void()> fn) override;

  // Moves time forward by `step` (negative steps are an invalid-argument Error).
  void advance(std::chrono::milliseconds step);
  // Moves time to `t`; moving backwards is an invalid-argument Error.
  void set(time_point t);
  // Sets the wall clock `step` forward or back while no time passes (an NTP step): wall-clock
  // timers now due run; monotonic timers do not move.
  void stepWallClock(std::chrono::milliseconds step);
  // The due time of the earliest pending timer, if any; lets a test advance "to the next event".
  std::optional<time_point> nextTimer() const;

  static time_point defaultStart();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace reconsume
