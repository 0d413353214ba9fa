// Routing failures by what went wrong (SPEC.md section 1, "Routing by error"): a consumer maps a
// failure to a category — by the exception's type (ErrorRules) or by name — and each category to
// what happens next (CategoryPolicy): a retry policy of its own, or the dead-letter topic at once.
//
//   options.retry = RetryPolicy::levels(DelayLevels::defaultTable());       // the default
//   options.categories["downstream-timeout"].retry =
//       RetryPolicy::exponential({.min = 100ms, .max = 10s}, 8).withTimeLimit(5min);
//   options.categories["invalid-order"].deadLetter = true;
//   options.errorRules.on<TimeoutError>("downstream-timeout")
//                     .on<std::invalid_argument>("invalid-order");
//   …
//   catch (...) { consumer.reconsumeLater(message, std::current_exception()); }
//
// Thread safety: plain values once built; ErrorRules::classify may be called from several threads
// at once (predicates must allow it).
#pragma once

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "reconsume/retry_policy.hpp"

namespace reconsume {

// What happens to the failures of one category.
struct CategoryPolicy {
  // Its own policy (levels, exponential, custom; its own maxRetries and time limit). None: the
  // consumer's retry policy.
  std::optional<RetryPolicy> retry;
  // Straight to the dead-letter topic, no retry (DEAD_LETTER_CAUSE=explicit).
  bool deadLetter{false};
  // Its own dead-letter topic (for `deadLetter`, and when its retries end); none: the consumer's.
  std::optional<std::string> deadLetterTopic;
};

// Which category an exception belongs to: rules per exception type, each with an optional
// predicate. Of the rules whose type the exception is (or derives from) and whose predicate holds,
// the one of the most derived type wins; among rules of one type, the first registered.
class ErrorRules {
 public:
  template <typename E>
  ErrorRules& on(std::string category) {
    return on<E>(std::move(category), [](const E&) { return true; });
  }
  template <typename E, typename Predicate>
  ErrorRules& on(std::string category, Predicate when) {
    Rule rule;
    rule.category = std::move(category);
    rule.typeName = typeid(E).name();
    rule.matches = [when = std::move(when)](const std::exception_ptr& error) {
      try {
        std::rethrow_exception(error);
      } catch (const E& e) {
        return static_cast<bool>(when(e));
      } catch (...) {
        return false;
      }
    };
    // A null E* thrown and caught as another rule's type pointer tells whether E derives from it.
    rule.probe = [] { return std::make_exception_ptr(static_cast<const E*>(nullptr)); };
    rule.catchesProbe = [](const std::exception_ptr& probe) {
      try {
        std::rethrow_exception(probe);
      } catch (const E*) {
        return true;
      } catch (...) {
        return false;
      }
    };
    rules_.push_back(std::move(rule));
    return *this;
  }

  // The category of `error`; nothing when no rule matches (or `error` is null).
  std::optional<std::string> classify(const std::exception_ptr& error) const;
  // The categories the rules name, in registration order (repeats kept).
  std::vector<std::string> categories() const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::string category;
    std::string typeName;
    std::function<bool(const std::exception_ptr&)> matches;
    std::function<std::exception_ptr()> probe;
    std::function<bool(const std::exception_ptr&)> catchesProbe;
  };
  std::vector<Rule> rules_;
};

// Exception types by name, for "errorRules" in the JSON consumer configuration. Knows the standard
// exception types ("std::exception", "std::runtime_error", "std::logic_error",
// "std::invalid_argument", "std::out_of_range", "std::domain_error", "std::length_error",
// "std::range_error", "std::overflow_error", "std::underflow_error", "std::system_error",
// "std::bad_alloc") and "reconsume::Error"; an application adds its own.
class ErrorTypeRegistry {
 public:
  ErrorTypeRegistry();

  // Registers E as `name`. Throws Error(errc::invalid_argument) for an empty or taken name.
  template <typename E>
  void add(std::string name) {
    add(std::move(name), [](ErrorRules& rules, std::string category) {
      rules.on<E>(std::move(category));
    });
  }
  bool contains(std::string_view name) const;
  // Adds to `rules` the rule "type `name` → `category`". Throws Error(errc::invalid_argument)
  // naming the type (and listing the known ones) for an unknown name.
  void addRule(ErrorRules& rules, std::string_view name, std::string category) const;

  // A registry with the built-in types only; the default of the loaders.
  static const ErrorTypeRegistry& builtin();

 private:
  using Adder = std::function<void(ErrorRules&, std::string)>;
  void add(std::string name, Adder adder);
  std::map<std::string, Adder, std::less<>> adders_;
};

}  // namespace reconsume
