// libFuzzer target: the JSON consumer configuration (parseConsumerOptions, consumer_config.hpp),
// and what a parsed configuration is then used for: the routing decision of each retry policy in
// it (routing.hpp, with a hostile message's RECONSUMETIMES and DELAY_TIME) and its redelivery
// backoffs.
//
// Input: the JSON text. Besides "no crash, no sanitizer report", it aborts when
//   - parseConsumerOptions throws anything but Error(errc::invalid_argument), or an error with
//     an empty text;
//   - parsed options do not pass validateConsumerOptions (the loader's promise);
//   - a retry policy routes a message to a negative delay, an exponential one beyond its max, a
//     level table to a delay that is not in the table, or a count that went backwards;
//   - a redelivery backoff answers a negative delay.
#include <chrono>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/properties.hpp"
#include "config/consumer_options_check.hpp"
#include "fuzz_check.hpp"
#include "reconsume/consumer_config.hpp"
#include "retry/routing.hpp"

using namespace reconsume;
using reconsume::fuzz::accepts;
using reconsume::fuzz::check;

namespace {

void route(const RetryPolicy& policy) {
  // Counts as a message could carry them: fresh, mid-chain, at and beyond the end, absurd.
  for (const char* count :
       {"0", "1", "2", "7", "63", "64", "1024", "2147483647", "99999999999999999999", "x"}) {
    for (const char* previousDelay : {"0", "1000", "9223372036854775807"}) {
      const detail::Properties incoming{{"RECONSUMETIMES", count}, {"DELAY_TIME", previousDelay}};
      detail::retry::Route route;
      check(accepts([&] { route = detail::retry::decide(policy, incoming, {}); }),
            "the routing decision of a parsed policy throws");
      check(route.count >= 0, "a negative retry count");
      if (route.destination != detail::retry::Destination::retryTopic) continue;
      check(route.count <= policy.maxRetries(), "a retry beyond maxRetries");
      check(route.delay.count() >= 0, "a negative retry delay");
      if (const auto* backoff = policy.exponentialBackoff()) {
        check(route.delay <= backoff->max, "an exponential delay beyond max");
      }
      if (const auto* table = policy.levelTable()) {
        check(route.level && *route.level >= 1 &&
                  static_cast<std::size_t>(*route.level) <= table->size() &&
                  table->at(*route.level) == route.delay,
              "a level delay that is not in the table");
      }
    }
  }
}

void backoff(const std::shared_ptr<const RedeliveryBackoff>& backoff) {
  if (!backoff) return;
  for (int count : {INT_MIN, -1, 0, 1, 2, 30, 1024, INT_MAX}) {
    check(backoff->next(count).count() >= 0, "a negative redelivery delay");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  ConsumerOptions options;
  try {
    options = parseConsumerOptions(json);
  } catch (const Error& e) {
    check(e.code() == errc::invalid_argument, "an Error with another code");
    check(std::string_view(e.what()).size() > 0, "an Error without a text");
    return 0;
  } catch (...) {
    check(false, "an exception other than Error");
  }
  check(accepts([&] { detail::config::validateConsumerOptions(options); }),
        "parsed options do not validate");
  if (options.retry) route(*options.retry);
  for (const auto& [name, category] : options.categories) {
    if (category.retry) route(*category.retry);
  }
  backoff(options.negativeAckRedeliveryBackoff);
  backoff(options.ackTimeoutRedeliveryBackoff);
  return 0;
}
