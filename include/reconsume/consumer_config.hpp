// ConsumerOptions from a JSON document, for applications and tools that keep their consumer
// configuration in a file. examples/consumer.json shows every key (with a level table;
// examples/consumer-exponential.json shows the exponential form):
//
//   {
//     "topics": ["persistent://shop/orders/created"],          // required, non-empty
//     "subscription": "billing",                                // required
//     "subscriptionType": "shared",      // exclusive | shared | failover | key_shared
//     "initialPosition": "latest",       // latest | earliest
//     "consumerName": "billing-1",
//     "receiverQueueSize": 1000,
//     "maxTotalReceiverQueueSizeAcrossPartitions": 50000,  // all topics and partitions together
//     "retry": {"levels": "1s 5s 30s 1m", "maxRetries": 6, "timeLimit": "24h"},
//     //  or   {"exponential": {"min": "1s", "max": "1m", "multiplier": 2, "jitter": "full"},
//     //        "maxRetries": 10}             ("timeLimit" optional: RetryPolicy::withTimeLimit)
//     "categories": {                   // routing by error (error_routing.hpp)
//       "downstream-timeout": {"retry": {"exponential": {"min": "100ms", "max": "10s"}}},
//       "invalid-order": {"deadLetter": true, "deadLetterTopic": "persistent://shop/orders/bad"}
//     },
//     "errorRules": [{"type": "std::system_error", "category": "downstream-timeout"}],
//     //   types from the ErrorTypeRegistry; a category that "categories" does not define is an
//     //   error naming it
//     "retryTopic": "...", "deadLetterTopic": "...", "deadLetterSubscription": "reconsume-dlq",
//     "transactionalRetry": false,       // moves in one transaction each (SPEC.md section 1)
//     "maxRedeliverCount": 5,            // poison messages to the dead-letter topic (0: off)
//     "ackTimeout": "30s",
//     "negativeAckRedeliveryDelay": "1m",
//     "negativeAckRedeliveryBackoff": {"type": "multiplier", "min": "1s", "max": "1m",
//                                      "multiplier": 2},
//     "ackTimeoutRedeliveryBackoff": {"type": "my-backoff", "step": "5s"}
//   }
//
// (Comments are not allowed in the file; they are here for explanation only.)
//
// Durations are strings "<integer><unit>", unit one of ms s m h d ("250ms", "30s", "1m").
// A redelivery backoff is an object with a "type" and that type's parameters beside it, at the
// same level — one shape for every type. The "multiplier" type is built in (MultiplierRedelivery-
// Backoff; "min", "max", "multiplier", each optional with that class's defaults); an application
// adds its own types to a BackoffRegistry (the counterpart of the Java client's className +
// params).
//
// Errors: throws Error(errc::invalid_argument) whose text names the key by its full path
// ("retry.exponential.multiplier", "topics[1]") and the value, for an unknown key, a value of the
// wrong type or a bad value; for a JSON syntax error, the line, column and byte offset. The result
// is also checked as a whole: at least one topic, valid topic names, a subscription,
// receiverQueueSize >= 1, maxTotalReceiverQueueSizeAcrossPartitions >= 1, and not both a
// non-default negativeAckRedeliveryDelay and a negativeAckRedeliveryBackoff (they cannot be used
// together, as in the Java client). When a key appears twice in an object, the last one counts.
//
// Thread safety: parseConsumerOptions and loadConsumerOptions may run on several threads at once.
// A BackoffRegistry may be read (create, contains) from several threads at once once it is no
// longer being changed (add).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reconsume/consumer_options.hpp"
#include "reconsume/redelivery_backoff.hpp"

namespace reconsume {

// The parameters of one backoff object: every key beside "type", each a JSON string, integer,
// number or boolean. A factory reads them with the typed accessors, which report a missing or
// mistyped value as Error(errc::invalid_argument) naming "<path>.<key>" and the value. Keys that
// no accessor asked for are reported by the loader as unknown keys (so a typo does not go
// unnoticed).
class BackoffParams {
 public:
  using Value = std::variant<std::string, std::int64_t, double, bool>;

  // `path`: where the backoff object is in the document, e.g. "negativeAckRedeliveryBackoff".
  BackoffParams(std::string path, std::map<std::string, Value, std::less<>> values);

  const std::string& path() const { return path_; }
  bool has(std::string_view key) const;

  // Required forms throw when the key is absent; the others return `fallback` then.
  std::chrono::milliseconds duration(std::string_view key) const;  // a duration string
  std::chrono::milliseconds duration(std::string_view key,
                                     std::chrono::milliseconds fallback) const;
  double number(std::string_view key) const;  // an integer or a number
  double number(std::string_view key, double fallback) const;
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback) const;
  std::string string(std::string_view key) const;
  std::string string(std::string_view key, std::string fallback) const;
  bool boolean(std::string_view key) const;
  bool boolean(std::string_view key, bool fallback) const;

  // For a factory that finds a value it cannot use: throws Error(errc::invalid_argument)
  // "<path>.<key> <value> <why>".
  [[noreturn]] void fail(std::string_view key, std::string_view why) const;

  // The keys no accessor has asked for so far, sorted.
  std::vector<std::string> unreadKeys() const;

 private:
  const Value* lookup(std::string_view key) const;
  std::string path_;
  std::map<std::string, Value, std::less<>> values_;
  mutable std::set<std::string, std::less<>> read_;
};

// Named factories of redelivery backoffs for the JSON loader.
class BackoffRegistry {
 public:
  using Factory =
      std::function<std::shared_ptr<const RedeliveryBackoff>(const BackoffParams& params)>;

  // Knows the built-in "multiplier" type.
  BackoffRegistry();

  // Registers `type`. Throws Error(errc::invalid_argument) for an empty name, an empty factory or
  // a name already registered (including "multiplier").
  void add(std::string type, Factory factory);
  bool contains(std::string_view type) const;
  // Builds a backoff of `type`. Throws Error(errc::invalid_argument) naming the type (and listing
  // the known ones) for an unknown type; errors of the factory propagate.
  std::shared_ptr<const RedeliveryBackoff> create(std::string_view type,
                                                  const BackoffParams& params) const;

  // A registry with the built-in types only; the default of the loaders.
  static const BackoffRegistry& builtin();

 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

// ConsumerOptions from the JSON text `json` (the keys above). `errorTypes` resolves the exception
// type names of "errorRules".
ConsumerOptions parseConsumerOptions(
    std::string_view json, const BackoffRegistry& registry = BackoffRegistry::builtin(),
    const ErrorTypeRegistry& errorTypes = ErrorTypeRegistry::builtin());
// The same from a file; errors name the file as well. A file that cannot be read is an
// Error(errc::invalid_argument) naming the path.
ConsumerOptions loadConsumerOptions(
    const std::filesystem::path& file, const BackoffRegistry& registry = BackoffRegistry::builtin(),
    const ErrorTypeRegistry& errorTypes = ErrorTypeRegistry::builtin());

}  // namespace reconsume
