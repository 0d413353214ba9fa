#include "retry/category_routes.hpp"

#include "common/gather.hpp"

namespace reconsume::detail::retry {

CategoryRoutes::CategoryRoutes(const ConsumerOptions& options,
                               const std::shared_ptr<client::ClientImpl>& client,
                               std::shared_ptr<LazyProducer> deadLetters)
    : policy_(options.retry),
      categories_(options.categories.begin(), options.categories.end()),
      deadLetters_(std::move(deadLetters)) {
  for (const auto& [name, category] : categories_) {
    const auto& topic = category.deadLetterTopic;
    // A category that names the consumer's own dead-letter topic uses the consumer's producer: on
    // a second producer of the same topic, a dead letter of that category could overtake one the
    // same thread sent before through the first (SPEC.md section 1, order).
    if (!topic || *topic == deadLetters_->topic() || deadLettersByTopic_.contains(*topic)) {
      continue;
    }
    ProducerOptions producer;
    producer.topic = *category.deadLetterTopic;
    producer.initialSubscription = options.deadLetterSubscription;
    producer.batching = deadLetterBatching();
    deadLettersByTopic_.emplace(*category.deadLetterTopic,
                                std::make_shared<LazyProducer>(client, producer));
  }
}

CategoryRoutes::Choice CategoryRoutes::choose(const std::optional<std::string>& category) const {
  Choice choice;
  choice.policy = policy_ ? &*policy_ : nullptr;
  choice.deadLetters = deadLetters_;
  if (!category) return choice;
  auto found = categories_.find(*category);
  if (found == categories_.end()) return choice;  // no rule: the default policy
  const auto& rule = found->second;
  if (rule.retry) choice.policy = &*rule.retry;
  choice.deadLetterAtOnce = rule.deadLetter;
  if (rule.deadLetterTopic) {
    // Absent: the consumer's own topic (see the constructor).
    if (auto own = deadLettersByTopic_.find(*rule.deadLetterTopic);
        own != deadLettersByTopic_.end()) {
      choice.deadLetters = own->second;
    }
  }
  return choice;
}

bool CategoryRoutes::hasAnyPolicy() const {
  if (policy_) return true;
  for (const auto& [name, category] : categories_) {
    if (category.retry || category.deadLetter) return true;
  }
  return false;
}

void CategoryRoutes::close(Callback<> done) {
  auto finish = countDown(deadLettersByTopic_.size(), std::move(done));
  for (auto& [topic, producer] : deadLettersByTopic_) producer->close(finish);
}

}  // namespace reconsume::detail::retry
