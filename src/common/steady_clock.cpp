#include "common/steady_clock.hpp"

#include <atomic>
#include <boost/asio/append.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

namespace reconsume::detail {

namespace asio = boost::asio;

namespace {

class RealWait final : public SteadyClock::Wait {
 public:
  explicit RealWait(const asio::any_io_executor& executor) : timer_(executor) {}
  void start(SteadyClock::time_point at, SteadyClock::Handler handler) override {
    timer_.expires_at(at);
    timer_.async_wait(std::move(handler));
  }
  void cancel() override { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

class RealSteadyClock final : public SteadyClock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  std::unique_ptr<Wait> makeWait(const asio::any_io_executor& executor) override {
    return std::make_unique<RealWait>(executor);
  }
};

void complete(const asio::any_io_executor& executor, SteadyClock::Handler handler,
              boost::system::error_code ec) {
  asio::post(executor, asio::append(std::move(handler), ec));
}

}  // namespace

const std::shared_ptr<SteadyClock>& SteadyClock::real() {
  // Never destroyed: timers may be armed by objects that outlive static destruction.
  static auto* instance = new std::shared_ptr<SteadyClock>(std::make_shared<RealSteadyClock>());
  return *instance;
}

Timer::Timer(const asio::any_io_executor& executor, std::shared_ptr<SteadyClock> clock)
    : clock_(clock ? std::move(clock) : SteadyClock::real()), wait_(clock_->makeWait(executor)) {}

void Timer::expiresAt(time_point at) {
  wait_->cancel();
  expiry_ = at;
}

// ----- ManualSteadyClock
// --------------------------------------------------------------------------

// A wait in progress. Its handler waits on an Asio timer that never expires, so that it belongs to
// its executor's io_context as a steady_timer's wait does: destroying the io_context destroys the
// handler and whatever it owns (a connection whose loop waits on its own backoff timer), instead of
// leaving it in the clock, owning what owns it. The clock completes the wait by cancelling that
// timer, on its executor, having said whether the wait is due.
struct ManualSteadyClock::Parked {
  explicit Parked(const asio::any_io_executor& executor)
      : timer(executor, asio::steady_timer::time_point::max()) {}
  asio::steady_timer timer;
  std::atomic<bool> due{false};
};

struct ManualSteadyClock::State {
  mutable std::mutex mutex;
  mutable std::condition_variable started;
  time_point now{std::chrono::hours(24)};  // any fixed start: tests must not depend on it
  std::uint64_t lastId = 0;
  std::multimap<time_point, std::uint64_t> byTime;
  // Weak: the parked handler owns its Parked, and the io_context owns the handler.
  std::map<std::uint64_t, std::pair<time_point, std::weak_ptr<Parked>>> byId;

  // Removes wait `id`; null when it is not waiting (completed already, or its io_context is gone).
  std::shared_ptr<Parked> take(std::uint64_t id) {
    auto found = byId.find(id);
    if (found == byId.end()) return nullptr;
    auto [first, last] = byTime.equal_range(found->second.first);
    for (auto it = first; it != last; ++it) {
      if (it->second == id) {
        byTime.erase(it);
        break;
      }
    }
    auto parked = found->second.second.lock();
    byId.erase(found);
    return parked;
  }

  // Completes a parked wait: with success when `due`, else with operation_aborted.
  static void release(std::shared_ptr<Parked> parked, bool due) {
    if (!parked) return;
    auto executor = parked->timer.get_executor();
    asio::post(executor, [parked = std::move(parked), due] {
      parked->due = due;
      parked->timer.cancel();
    });
  }
};

class ManualSteadyClock::ManualWait final : public SteadyClock::Wait {
 public:
  ManualWait(std::shared_ptr<State> state, asio::any_io_executor executor)
      : state_(std::move(state)), executor_(std::move(executor)) {}
  ~ManualWait() override { cancel(); }

  void start(time_point at, Handler handler) override {
    cancel();
    std::lock_guard lock(state_->mutex);
    id_ = ++state_->lastId;
    if (at <= state_->now) {
      complete(executor_, std::move(handler), {});
      id_ = 0;
      return;
    }
    auto parked = std::make_shared<Parked>(executor_);
    auto executor = asio::get_associated_executor(handler, executor_);
    parked->timer.async_wait(asio::bind_executor(
        executor, [parked, handler = std::move(handler)](boost::system::error_code) mutable {
          boost::system::error_code ec;
          if (!parked->due) ec = asio::error::operation_aborted;
          std::move(handler)(ec);
        }));
    state_->byTime.emplace(at, id_);
    state_->byId.emplace(id_, std::pair{at, std::weak_ptr<Parked>(parked)});
    state_->started.notify_all();
  }

  void cancel() override {
    std::shared_ptr<Parked> parked;
    {
      std::lock_guard lock(state_->mutex);
      if (id_ == 0) return;
      parked = state_->take(std::exchange(id_, 0));
    }
    State::release(std::move(parked), false);
  }

 private:
  std::shared_ptr<State> state_;
  asio::any_io_executor executor_;
  std::uint64_t id_ = 0;
};

ManualSteadyClock::ManualSteadyClock() : state_(std::make_shared<State>()) {}
ManualSteadyClock::~ManualSteadyClock() = default;

SteadyClock::time_point ManualSteadyClock::now() const {
  std::lock_guard lock(state_->mutex);
  return state_->now;
}

std::unique_ptr<SteadyClock::Wait> ManualSteadyClock::makeWait(
    const asio::any_io_executor& executor) {
  return std::make_unique<ManualWait>(state_, executor);
}

void ManualSteadyClock::advance(duration step) {
  std::vector<std::shared_ptr<Parked>> due;
  {
    std::lock_guard lock(state_->mutex);
    state_->now += step;
    while (!state_->byTime.empty() && state_->byTime.begin()->first <= state_->now) {
      due.push_back(state_->take(state_->byTime.begin()->second));
    }
  }
  for (auto& parked : due) State::release(std::move(parked), true);
}

std::size_t ManualSteadyClock::pendingWaits() const {
  std::lock_guard lock(state_->mutex);
  return state_->byId.size();
}

bool ManualSteadyClock::waitForPendingWaits(std::size_t count,
                                            std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->mutex);
  return state_->started.wait_for(lock, timeout, [&] { return state_->byId.size() >= count; });
}

}  // namespace reconsume::detail
