#include "reconsume/clock.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/timer_queue.hpp"
#include "reconsume/error.hpp"

namespace reconsume {

using namespace std::chrono_literals;

// ---- SystemClock: one timer thread, started with the first timer --------------------------

struct SystemClock::State {
  std::mutex mutex;
  std::condition_variable wake;
  detail::WallTimers wall;
  detail::SteadyTimers steady;
  Clock::TimerId lastId = 0;
  bool stopping = false;
  std::thread thread;

  void run() {
    std::unique_lock lock(mutex);
    while (!stopping) {
      auto wallNow = std::chrono::system_clock::now();
      auto steadyNow = std::chrono::steady_clock::now();
      auto due = wall.popDue(wallNow);
      if (!due) {
        if (auto steadyDue = steady.popDue(steadyNow)) due.emplace(wallNow, steadyDue->second);
      }
      if (due) {
        lock.unlock();
        due->second();
        lock.lock();
        continue;
      }
      auto nextWall = wall.earliest();
      auto nextSteady = steady.earliest();
      if (nextWall && !nextSteady) {
        wake.wait_until(lock, *nextWall);  // on the wall clock: follows its steps
      } else if (nextSteady) {
        auto until = *nextSteady;
        // Both kinds: wait on the monotonic clock for whichever comes first; a step of the wall
        // clock meanwhile is seen within a second.
        if (nextWall) until = std::min({until, steadyNow + (*nextWall - wallNow), steadyNow + 1s});
        wake.wait_until(lock, until);
      } else {
        wake.wait(lock);
      }
    }
  }

  template <typename Queue, typename TimePoint>
  Clock::TimerId add(Queue& queue, TimePoint at, std::function<void()> fn,
                     const std::shared_ptr<State>& self) {
    Clock::TimerId id;
    {
      std::lock_guard lock(mutex);
      id = ++lastId;
      queue.add(id, at, std::move(fn));
      if (!thread.joinable()) thread = std::thread([self] { self->run(); });
    }
    wake.notify_all();
    return id;
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
  return state_->add(state_->wall, at, std::move(fn), state_);
}

Clock::TimerId SystemClock::scheduleSteady(steady_time_point at, std::function<void()> fn) {
  return state_->add(state_->steady, at, std::move(fn), state_);
}

bool SystemClock::cancel(TimerId id) {
  std::lock_guard lock(state_->mutex);
  return state_->wall.remove(id) || state_->steady.remove(id);
}

std::shared_ptr<SystemClock> SystemClock::shared() {
  // Never destroyed: timers may still be armed by objects that outlive static destruction.
  static auto* instance = new std::shared_ptr<SystemClock>(std::make_shared<SystemClock>());
  return *instance;
}

// ---- ManualClock ----------------------------------------------------------------------------

struct ManualClock::State {
  mutable std::mutex mutex;
  // One advance at a time, so timers run in due order; recursive so that advance() can read
  // "now" and move from it as one step (set() takes it again).
  std::recursive_mutex advancing;
  detail::WallTimers wall;
  detail::SteadyTimers steady;
  Clock::TimerId lastId = 0;
  // Written under `mutex`, read without it: the embedded broker and the client read the time
  // several times per message.
  std::atomic<time_point::rep> now{0};
  std::atomic<steady_time_point::rep> steadyNow{0};  // moves with `now`, except at a wall step

  time_point wallTime() const { return time_point(time_point::duration(now.load())); }
  steady_time_point steadyTime() const {
    return steady_time_point(steady_time_point::duration(steadyNow.load()));
  }
  void moveTo(time_point wallAt, steady_time_point steadyAt) {
    now.store(wallAt.time_since_epoch().count());
    steadyNow.store(steadyAt.time_since_epoch().count());
  }
};

ManualClock::ManualClock(time_point start) : state_(std::make_unique<State>()) {
  state_->moveTo(start, steady_time_point());
}

ManualClock::~ManualClock() = default;

Clock::time_point ManualClock::defaultStart() {
  // 2024-01-01T00:00:00Z
  return time_point(std::chrono::seconds(1'704'067'200));
}

Clock::time_point ManualClock::now() const {
  return state_->wallTime();
}

Clock::steady_time_point ManualClock::steadyNow() const {
  return state_->steadyTime();
}

Clock::TimerId ManualClock::schedule(time_point at, std::function<void()> fn) {
  std::lock_guard lock(state_->mutex);
  state_->wall.add(++state_->lastId, at, std::move(fn));
  return state_->lastId;
}

Clock::TimerId ManualClock::scheduleSteady(steady_time_point at, std::function<void()> fn) {
  std::lock_guard lock(state_->mutex);
  state_->steady.add(++state_->lastId, at, std::move(fn));
  return state_->lastId;
}

bool ManualClock::cancel(TimerId id) {
  std::lock_guard lock(state_->mutex);
  return state_->wall.remove(id) || state_->steady.remove(id);
}

void ManualClock::advance(std::chrono::milliseconds step) {
  if (step.count() < 0) {
    throw Error(errc::invalid_argument,
                "ManualClock::advance: step " + std::to_string(step.count()) + "ms is negative");
  }
  // Under the lock: two threads advancing by 100 ms each move the clock by 200 ms, and neither
  // computes its target from a "now" the other has already passed.
  std::lock_guard advancing(state_->advancing);
  set(now() + step);
}

void ManualClock::set(time_point target) {
  std::lock_guard advancing(state_->advancing);
  std::unique_lock lock(state_->mutex);
  auto now = state_->wallTime();
  auto steadyNow = state_->steadyTime();
  if (target < now) {
    auto behind = std::chrono::duration_cast<std::chrono::milliseconds>(now - target);
    throw Error(errc::invalid_argument, "ManualClock::set: the time given is " +
                                            std::to_string(behind.count()) +
                                            "ms before now; a clock does not go back");
  }
  // Wall and monotonic time move together: run the timers of both kinds in the order they fall
  // due within the step.
  auto steadyTarget = steadyNow + (target - now);
  for (;;) {
    auto wallDue = state_->wall.earliest();
    auto steadyDue = state_->steady.earliest();
    bool wallReady = wallDue && *wallDue <= target;
    bool steadyReady = steadyDue && *steadyDue <= steadyTarget;
    if (!wallReady && !steadyReady) break;
    bool wallFirst = wallReady && (!steadyReady || *wallDue - now <= *steadyDue - steadyNow);
    std::function<void()> fn;
    if (wallFirst) {
      auto due = state_->wall.popDue(target);
      if (due->first > now) {
        steadyNow += due->first - now;
        now = due->first;
      }
      fn = std::move(due->second);
    } else {
      auto due = state_->steady.popDue(steadyTarget);
      if (due->first > steadyNow) {
        now += due->first - steadyNow;
        steadyNow = due->first;
      }
      fn = std::move(due->second);
    }
    state_->moveTo(now, steadyNow);
    lock.unlock();
    fn();
    lock.lock();
    // Only this advance moves the clock (`advancing` is held), but a timer may have stepped the
    // wall clock: read it again.
    now = state_->wallTime();
    steadyNow = state_->steadyTime();
  }
  state_->moveTo(target, steadyTarget);
}

void ManualClock::stepWallClock(std::chrono::milliseconds step) {
  std::lock_guard advancing(state_->advancing);
  std::unique_lock lock(state_->mutex);
  state_->now.store((state_->wallTime() + step).time_since_epoch().count());
  while (auto due = state_->wall.popDue(state_->wallTime())) {
    lock.unlock();
    due->second();
    lock.lock();
  }
}

std::optional<Clock::time_point> ManualClock::nextTimer() const {
  std::lock_guard lock(state_->mutex);
  auto wall = state_->wall.earliest();
  auto steady = state_->steady.earliest();
  std::optional<time_point> next;
  const auto now = state_->wallTime();
  if (steady) next = now + (*steady - state_->steadyTime());
  if (wall && (!next || *wall < *next)) next = wall;
  // A timer scheduled for a time already passed (computed from an earlier reading) is due now:
  // set(*nextTimer()) runs it rather than being refused as a step back.
  if (next && *next < now) next = now;
  return next;
}

}  // namespace reconsume
