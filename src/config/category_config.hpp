// The JSON of routing by error (SPEC.md section 1): "categories" and "errorRules" of the consumer
// configuration, and the retry policy object both they and "retry" use.
//
// Thread safety: pure functions.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <map>
#include <string>

#include "reconsume/consumer_options.hpp"

namespace reconsume::detail::config {

// A retry policy object at `path`: "levels" or "exponential", "maxRetries", "timeLimit".
RetryPolicy readRetry(const boost::json::object& object, const std::string& path);

// "categories": {"<name>": {"retry": {…}, "deadLetter": true, "deadLetterTopic": "…"}, …}.
std::map<std::string, CategoryPolicy> readCategories(const boost::json::object& object);

// "errorRules": [{"type": "<exception type name>", "category": "<name>"}, …]. Throws
// Error(errc::invalid_argument) naming the rule for a category `categories` does not define and
// for a type `errorTypes` does not know.
ErrorRules readErrorRules(const boost::json::array& rules,
                          const std::map<std::string, CategoryPolicy>& categories,
                          const ErrorTypeRegistry& errorTypes);

}  // namespace reconsume::detail::config
