#include "retry/move_metrics.hpp"

namespace reconsume::detail::retry {

MoveMetrics::MoveMetrics(std::shared_ptr<MetricsRegistry> registry, std::string subscription)
    : registry_(std::move(registry)),
      subscription_(std::move(subscription)),
      duration_(registry_->histogram(metrics::kMoveDuration, {{metrics::kGroup, subscription_}})) {}

std::shared_ptr<Counter> MoveMetrics::counterFor(const Route& route) {
  bool retry = route.destination == Destination::retryTopic;
  // The level of the table; for exponential and custom policies the retry's number.
  std::string step =
      retry ? std::to_string(route.level.value_or(route.count))
            : std::string(toString(route.cause.value_or(DeadLetterCause::explicitCall)));
  std::string category = route.category.value_or("");
  std::string key = std::string(retry ? "r|" : "d|") + step + "|" + category;
  std::lock_guard lock(mutex_);
  auto& counter = counters_[key];
  if (!counter) {
    MetricLabels labels = {{metrics::kGroup, subscription_}, {metrics::kCategory, category}};
    labels.emplace_back(retry ? metrics::kLevel : metrics::kCause, step);
    counter = registry_->counter(retry ? metrics::kRetries : metrics::kDeadLetters, labels);
  }
  return counter;
}

void MoveMetrics::moved(const Route& route, std::chrono::duration<double> took) {
  counterFor(route)->add();
  duration_->record(took.count());
}

}  // namespace reconsume::detail::retry
