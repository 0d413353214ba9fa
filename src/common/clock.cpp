#include "reconsume/clock.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/timer_queue.hpp"
#include "reconsume/error.hpp"

namespace reconsume {

// ---- SystemClock: one timer thread, started with the first timer --------------------------

struct SystemClock::State {
  std::mutex mutex;
  std::condition_variable wake;
  detail::TimerQueue timers;
  bool stopping = false;
  std::thread thread;

  void run() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      auto now = std::chrono::system_clock::now();
      if (auto due = timers.popDue(now)) {
        lock.unlock();
        due->second();
        lock.lock();
        continue;
      }
      if (auto next = timers.earliest()) {
        wake.wait_until(lock, *next);
      } else {
        wake.wait(lock);
      }
    }
  }
};

SystemClock::SystemClock() : state_(std::make_shared<State>()) {}

SystemClock::~SystemClock() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (state_->thread.joinable()) {
    if (state_->thread.get_id() == std::this_thread::get_id()) {
      state_->thread.detach();  // destroyed by one of its own timers; the state outlives us
    } else {
      state_->thread.join();
    }
  }
}

Clock::time_point SystemClock::now() const {
  return std::chrono::system_clock::now();
}

Clock::TimerId SystemClock::schedule(time_point at, std::function<void()> fn) {
  TimerId id;
  {
    std::lock_guard lock(state_->mutex);
    id = state_->timers.add(at, std::move(fn));
    if (!state_->thread.joinable()) {
      state_->thread = std::thread([state = state_] { state->run(); });
    }
  }
  state_->wake.notify_all();
  return id;
}

bool SystemClock::cancel(TimerId id) {
  std::lock_guard lock(state_->mutex);
  return state_->timers.remove(id);
}

std::shared_ptr<SystemClock> SystemClock::shared() {
  // Never destroyed: timers may still be armed by objects that outlive static destruction.
  static auto* instance = new std::shared_ptr<SystemClock>(std::make_shared<SystemClock>());
  return *instance;
}

// ---- ManualClock ----------------------------------------------------------------------------

struct ManualClock::State {
  mutable std::mutex mutex;
  std::mutex advancing;  // one advance at a time, so timers run in due order
  detail::TimerQueue timers;
  time_point now;
};

ManualClock::ManualClock(time_point start) : state_(std::make_unique<State>()) {
  state_->now = start;
}

ManualClock::~ManualClock() = default;

Clock::time_point ManualClock::defaultStart() {
  // 2024-01-01T00:00:00Z
  return time_point(std::chrono::seconds(1'704'067'200));
}

Clock::time_point ManualClock::now() const {
  std::lock_guard lock(state_->mutex);
  return state_->now;
}

Clock::TimerId ManualClock::schedule(time_point at, std::function<void()> fn) {
  std::lock_guard lock(state_->mutex);
  return state_->timers.add(at, std::move(fn));
}

bool ManualClock::cancel(TimerId id) {
  std::lock_guard lock(state_->mutex);
  return state_->timers.remove(id);
}

void ManualClock::advance(std::chrono::milliseconds step) {
  if (step.count() < 0) {
    throw Error(errc::invalid_argument,
                "ManualClock::advance: step " + std::to_string(step.count()) + "ms is negative");
  }
  set(now() + step);
}

void ManualClock::set(time_point target) {
  std::lock_guard advancing(state_->advancing);
  std::unique_lock lock(state_->mutex);
  if (target < state_->now) {
    auto behind = std::chrono::duration_cast<std::chrono::milliseconds>(state_->now - target);
    throw Error(errc::invalid_argument, "ManualClock::set: the time given is " +
                                            std::to_string(behind.count()) +
                                            "ms before now; a clock does not go back");
  }
  while (auto due = state_->timers.popDue(target)) {
    if (due->first > state_->now) state_->now = due->first;
    lock.unlock();
    due->second();
    lock.lock();
  }
  state_->now = target;
}

std::optional<Clock::time_point> ManualClock::nextTimer() const {
  std::lock_guard lock(state_->mutex);
  return state_->timers.earliest();
}

}  // namespace reconsume
