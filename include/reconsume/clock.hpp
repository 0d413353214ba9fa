// Clocks: the time that delayed delivery, ack timeouts, negative-ack delays and publish times run
// on. The embedded broker and the consumer's redelivery timers read time and arm timers only
// through a Clock, so a test that passes a ManualClock decides when "two hours later" is.
// Timeouts of blocking calls (receive, readNext) always run on real time.
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
  using TimerId = std::uint64_t;

  virtual ~Clock() = default;
  virtual time_point now() const = 0;

  // Runs `fn` once, when now() has reached `at`, on a thread of the clock's choosing (SystemClock:
  // its timer thread; ManualClock: the thread that calls advance or set). No lock of the clock is
  // held while `fn` runs, so `fn` may schedule or cancel timers. Returns an id for cancel().
  virtual TimerId schedule(time_point at, std::function<void()> fn) = 0;

  // Cancels a timer that has not started running; returns false when it already ran or started.
  virtual bool cancel(TimerId id) = 0;
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

  // The process-wide instance used when ClientOptions::clock is null.
  static std::shared_ptr<SystemClock> shared();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// Time that moves only when told to. advance() and set() run every timer that falls due, in
// order of due time, on the calling thread; while a timer runs, now() reads its due time, so
// work it triggers sees the time it was meant for.
class ManualClock final : public Clock {
 public:
  // Starts at `start` (default: 2024-01-01T00:00:00Z, so tests are reproducible).
  explicit ManualClock(time_point start = defaultStart());
  ~ManualClock() override;

  time_point now() const override;
  TimerId schedule(time_point at, std::function<void()> fn) override;
  bool cancel(TimerId id) override;

  // Moves time forward by `step` (negative steps are an invalid-argument Error).
  void advance(std::chrono::milliseconds step);
  // Moves time to `t`; moving backwards is an invalid-argument Error.
  void set(time_point t);
  // The due time of the earliest pending timer, if any; lets a test advance "to the next event".
  std::optional<time_point> nextTimer() const;

  static time_point defaultStart();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace reconsume
