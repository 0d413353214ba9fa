#include "common/steady_clock.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
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

struct ManualSteadyClock::State {
  struct Entry {
    asio::any_io_executor executor;
    Handler handler;
  };
  mutable std::mutex mutex;
  time_point now{std::chrono::hours(24)};  // any fixed start: tests must not depend on it
  std::uint64_t lastId = 0;
  std::multimap<time_point, std::uint64_t> byTime;
  std::map<std::uint64_t, std::pair<time_point, Entry>> byId;

  // Removes entry `id`; false when it is not waiting (completed already).
  bool take(std::uint64_t id, Entry& out) {
    auto found = byId.find(id);
    if (found == byId.end()) return false;
    auto [first, last] = byTime.equal_range(found->second.first);
    for (auto it = first; it != last; ++it) {
      if (it->second == id) {
        byTime.erase(it);
        break;
      }
    }
    out = std::move(found->second.second);
    byId.erase(found);
    return true;
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
    state_->byTime.emplace(at, id_);
    state_->byId.emplace(id_, std::pair{at, State::Entry{executor_, std::move(handler)}});
  }

  void cancel() override {
    State::Entry entry;
    {
      std::lock_guard lock(state_->mutex);
      if (id_ == 0 || !state_->take(std::exchange(id_, 0), entry)) return;
    }
    complete(entry.executor, std::move(entry.handler), asio::error::operation_aborted);
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
  std::vector<State::Entry> due;
  {
    std::lock_guard lock(state_->mutex);
    state_->now += step;
    while (!state_->byTime.empty() && state_->byTime.begin()->first <= state_->now) {
      State::Entry entry;
      state_->take(state_->byTime.begin()->second, entry);
      due.push_back(std::move(entry));
    }
  }
  for (auto& entry : due) complete(entry.executor, std::move(entry.handler), {});
}

std::size_t ManualSteadyClock::pendingWaits() const {
  std::lock_guard lock(state_->mutex);
  return state_->byId.size();
}

}  // namespace reconsume::detail
