// The routing decision of reconsumeLater and deadLetter (SPEC.md §1): from the policy, the
// incoming message's properties and the call the application made, where the message goes next
// (retry topic or dead-letter topic), with which retry count and after which delay.
//
// Pure: no I/O, no clock, no state; the only outside input is the policy's random source (for
// jitter). Thread safety: decide may be called from any number of threads at once (the policy's
// random source must be thread-safe, as RetryPolicy requires).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/properties.hpp"
#include "reconsume/consumer_options.hpp"
#include "reconsume/retry_policy.hpp"

namespace reconsume::detail::retry {

// Which call of SPEC.md §1 the application made.
struct RetryRequest {
  enum class Kind { next, level, delay, deadLetter };
  Kind kind = Kind::next;
  int level = 0;                        // Kind::level (1-based)
  std::chrono::milliseconds delay{0};   // Kind::delay
  std::optional<std::string> category;  // the failure's category (routing by error)
  // From ReconsumeOptions: level → Kind::level, delay → Kind::delay, neither → Kind::next; both
  // set → Error(errc::invalid_argument) naming both values.
  static RetryRequest from(const ReconsumeOptions& options);
};

enum class Destination { retryTopic, deadLetterTopic };
enum class DeadLetterCause { exhausted, explicitCall, redelivered, expired };
// "exhausted" / "explicit" / "redelivered" / "expired": the DEAD_LETTER_CAUSE values.
std::string_view toString(DeadLetterCause cause);

struct Route {
  Destination destination = Destination::retryTopic;
  int count = 0;                         // RECONSUMETIMES of the new message
  std::chrono::milliseconds delay{0};    // retry topic only
  std::optional<int> level;              // level-table policy and a level was used
  std::optional<DeadLetterCause> cause;  // dead-letter topic only
  std::optional<std::string> category;   // the request's category, written as RECONSUME_CATEGORY
  bool malformedCount = false;           // incoming RECONSUMETIMES did not parse (caller logs it)
};

// Where the message with properties `incoming` goes for `request`. Throws
// Error(errc::invalid_argument) naming the value for an invalid request (an explicit level with a
// policy that has no table or outside the table, a negative explicit delay) — checked before
// anything else, so an invalid request never yields a route even for a message that is exhausted
// — and for a custom policy whose delay function returns a negative delay. Exceptions thrown by a
// custom delay function propagate unchanged.
Route decide(const RetryPolicy& policy, const Properties& incoming, const RetryRequest& request);

// Straight to the dead-letter topic (deadLetter, or a category routed there): the count unchanged,
// DEAD_LETTER_CAUSE=explicit.
Route explicitDeadLetter(const Properties& incoming, std::optional<std::string> category);

// The time limit of `policy` (RetryPolicy::withTimeLimit, SPEC.md section 1) applied to `route`:
// a retry whose delay would end after FIRST_FAILURE_TIME (of `incoming`; `now` when absent or not a
// number) + the limit becomes a dead letter with cause expired. Other routes pass unchanged.
Route applyTimeLimit(const RetryPolicy& policy, const Properties& incoming, Route route,
                     std::chrono::system_clock::time_point now);

// A property value holding a retry count, level or delay: a plain base-10 non-negative integer
// (digits only: no sign, no spaces). Values beyond int64 saturate. Nothing for anything else.
std::optional<std::int64_t> parsePropertyCount(std::string_view text);

}  // namespace reconsume::detail::retry
