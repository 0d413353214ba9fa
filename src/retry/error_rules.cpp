#include "reconsume/error_routing.hpp"

namespace reconsume {

std::optional<std::string> ErrorRules::classify(const std::exception_ptr& error) const {
  if (!error) return std::nullopt;
  const Rule* best = nullptr;
  for (const auto& rule : rules_) {
    if (!rule.matches(error)) continue;
    // `rule` wins over the best so far when its type derives from the best's and not the other
    // way round (the same type both ways: the earlier rule stays).
    if (best == nullptr ||
        (best->catchesProbe(rule.probe()) && !rule.catchesProbe(best->probe()))) {
      best = &rule;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->category;
}

std::vector<std::string> ErrorRules::categories() const {
  std::vector<std::string> names;
  names.reserve(rules_.size());
  for (const auto& rule : rules_) names.push_back(rule.category);
  return names;
}

}  // namespace reconsume
