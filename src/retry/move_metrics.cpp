#include "retry/move_metrics.hpp"

namespace reconsume::detail::retry {

MoveMetrics::MoveMetrics(std::shared_ptr<MetricsRegistry> registry, std::string subscription)
    : registry_(std::move(registry)),
      subscription_(std::move(subscription)),
      duration_(registry_->histogram(metrics::kMoveDuration, {{metrics::kGroup, subscription_}})) {}

Counter& MoveMetrics::counterFor(const Route& route) {
  const bool retry = route.destination == Destination::retryTopic;
  // The level of the table; for exponential and custom policies the retry's number.
  const auto cause = route.cause.value_or(DeadLetterCause::explicitCall);
  const SeriesKey key{retry, retry ? route.level.value_or(route.count) : static_cast<int>(cause),
                      route.category ? std::string_view(*route.category) : std::string_view()};
  auto same = [&](const StoredKey& stored) {
    return stored.retry == key.retry && stored.step == key.step && stored.category == key.category;
  };
  if (const auto* last = last_.load(std::memory_order_acquire); last && same(last->first)) {
    return *last->second;
  }
  std::lock_guard lock(mutex_);
  auto found = counters_.find(key);
  if (found == counters_.end()) {
    std::string step = retry ? std::to_string(key.step) : std::string(toString(cause));
    MetricLabels labels = {{metrics::kGroup, subscription_},
                           {metrics::kCategory, std::string(key.category)}};
    labels.emplace_back(retry ? metrics::kLevel : metrics::kCause, step);
    auto counter = registry_->counter(retry ? metrics::kRetries : metrics::kDeadLetters, labels);
    found =
        counters_.emplace(StoredKey{key.retry, key.step, std::string(key.category)}, counter).first;
  }
  last_.store(&*found, std::memory_order_release);
  return *found->second;
}

void MoveMetrics::moved(const Route& route, std::chrono::duration<double> took) {
  counterFor(route).add();
  duration_->record(took.count());
}

}  // namespace reconsume::detail::retry
